package dev.warmpool.agent.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cgroup writer against a temp dir laid out as a cgroup v1 or v2 mount: where each bound goes. */
class CgroupsTests {
    @TempDir
    Path root;

    static final RoomLimits.Bounds BOUNDS = new RoomLimits.Bounds(500, 64L << 20, 128);

    /** A v1 mount: one hierarchy per controller, with the files the kernel shows. */
    void v1(String... controllers) throws Exception {
        for (String c : controllers) {
            Path mount = Files.createDirectories(root.resolve(c).resolve("session/a"));
            Files.writeString(root.resolve(c).resolve("cgroup.procs"), "");
            Files.writeString(mount.resolve("cgroup.procs"), "");
        }
    }

    static final String SELF_V1 = "9:name=systemd:/\n8:pids:/session/a\n4:memory:/session/a\n1:cpu,cpuacct:/\n0::/\n";

    @Test
    void v1NestsEachControllersCgroupBelowTheOneThisProcessIsIn() throws Exception {
        v1("memory", "pids", "cpu");
        Cgroups c = Cgroups.find(root, SELF_V1);
        assertEquals(Cgroups.Version.V1, c.version());
        List<Path> dirs = c.make("p1", BOUNDS);
        Path memory = root.resolve("memory/session/a/warmpool/p1");
        Path pids = root.resolve("pids/session/a/warmpool/p1");
        Path cpu = root.resolve("cpu/warmpool/p1");
        assertEquals(List.of(memory, pids, cpu), dirs);
        assertEquals(Long.toString(64L << 20), Files.readString(memory.resolve("memory.limit_in_bytes")));
        assertEquals("128", Files.readString(pids.resolve("pids.max")));
        assertEquals("100000", Files.readString(cpu.resolve("cpu.cfs_period_us")));
        assertEquals("50000", Files.readString(cpu.resolve("cpu.cfs_quota_us")), "half a core: half of each period");
        assertFalse(Files.exists(memory.resolve("memory.memsw.limit_in_bytes")), "only where the kernel has it");

        assertTrue(Cgroups.move(dirs, ProcessHandle.current().pid()));
        for (Path d : dirs) {
            assertEquals(Long.toString(ProcessHandle.current().pid()), Files.readString(d.resolve("cgroup.procs")));
        }
    }

    @Test
    void v1JoinsOnlyTheControllersThatHaveABound() throws Exception {
        v1("memory", "pids", "cpu");
        List<Path> dirs = Cgroups.find(root, SELF_V1).make("p2", new RoomLimits.Bounds(0, 0, 4096));
        assertEquals(List.of(root.resolve("pids/session/a/warmpool/p2")), dirs);
        assertFalse(Files.exists(root.resolve("memory/session/a/warmpool/p2")));
    }

    @Test
    void v1SwapIsBoundedWithMemoryWhereTheKernelCountsIt() throws Exception {
        v1("memory", "pids");
        Path memsw = Files.createDirectories(root.resolve("memory/session/a/warmpool/p3"))
                .resolve("memory.memsw.limit_in_bytes");
        Files.writeString(memsw, "9223372036854771712");
        Cgroups c = Cgroups.find(root, SELF_V1);
        c.make("p3", BOUNDS);
        assertEquals(Long.toString(64L << 20), Files.readString(memsw));
        assertFalse(c.hasCpu(), "no cpu hierarchy: cpu is not bounded, and the rest still is");
    }

    @Test
    void v1WithoutMemoryOrPidsIsNoCgroup() throws Exception {
        v1("cpu", "memory");
        Cgroups.Unavailable e = assertThrows(Cgroups.Unavailable.class, () -> Cgroups.find(root, SELF_V1));
        assertTrue(e.getMessage().contains("pids"), e.getMessage());
    }

    @Test
    void v2MakesOneCgroupUnderTheRootAndHandsItsControllersDown() throws Exception {
        Files.writeString(root.resolve("cgroup.controllers"), "cpuset cpu io memory hugetlb pids rdma misc\n");
        Files.writeString(root.resolve("cgroup.subtree_control"), "");
        Cgroups c = Cgroups.find(root, "0::/user.slice/session-1.scope\n");
        assertEquals(Cgroups.Version.V2, c.version());
        Path base = root.resolve("warmpool");
        Files.createDirectories(base.resolve("p1"));
        Files.writeString(base.resolve("p1/memory.swap.max"), "max");
        List<Path> dirs = c.make("p1", BOUNDS);
        assertEquals(List.of(base.resolve("p1")), dirs);
        assertEquals("+memory +pids +cpu", Files.readString(root.resolve("cgroup.subtree_control")));
        assertEquals("+memory +pids +cpu", Files.readString(base.resolve("cgroup.subtree_control")));
        assertEquals(Long.toString(64L << 20), Files.readString(base.resolve("p1/memory.max")));
        assertEquals("0", Files.readString(base.resolve("p1/memory.swap.max")));
        assertEquals("128", Files.readString(base.resolve("p1/pids.max")));
        assertEquals("50000 100000", Files.readString(base.resolve("p1/cpu.max")));

        c.make("p2", new RoomLimits.Bounds(0, 0, 64));
        assertEquals("max", Files.readString(base.resolve("p2/memory.max")));
        assertEquals("max 100000", Files.readString(base.resolve("p2/cpu.max")));
    }

    @Test
    void v2LeavesControllersThatAreHandedDownAlready() throws Exception {
        Files.writeString(root.resolve("cgroup.controllers"), "memory pids\n");
        Files.writeString(root.resolve("cgroup.subtree_control"), "memory pids\n");
        Cgroups c = Cgroups.find(root, "0::/\n");
        c.make("p1", BOUNDS);
        assertEquals("memory pids\n", Files.readString(root.resolve("cgroup.subtree_control")));
        assertFalse(Files.exists(root.resolve("warmpool/p1/cpu.max")), "no cpu controller: no cpu bound");
    }

    @Test
    void v2WithoutThePidsControllerIsNoCgroup() throws Exception {
        Files.writeString(root.resolve("cgroup.controllers"), "cpu memory\n");
        Files.writeString(root.resolve("cgroup.subtree_control"), "");
        assertThrows(Cgroups.Unavailable.class, () -> Cgroups.find(root, "0::/\n"));
    }

    @Test
    void aReadOnlyHierarchyIsNoCgroup() throws Exception {
        v1("memory", "pids");
        root.resolve("memory/session/a").toFile().setWritable(false);
        try {
            if (Files.isWritable(root.resolve("memory/session/a"))) {
                return; // root writes anyway: the check is for other users
            }
            assertThrows(Cgroups.Unavailable.class, () -> Cgroups.find(root, SELF_V1));
        } finally {
            root.resolve("memory/session/a").toFile().setWritable(true);
        }
    }

    @Test
    void aSweepRemovesOnlyEmptyCgroupsOfProcessorsThatAreGone() throws Exception {
        v1("memory", "pids");
        Cgroups c = Cgroups.find(root, SELF_V1);
        Path base = root.resolve("pids/session/a/warmpool");
        Files.createDirectories(base.resolve("gone"));
        Files.createDirectories(base.resolve("live"));
        Files.createDirectories(base.resolve("busy"));
        Files.writeString(base.resolve("busy/cgroup.procs"), "1\n");
        assertEquals(List.of("gone"), c.sweep(Set.of("live")));
        assertTrue(Files.isDirectory(base.resolve("live")));
        assertTrue(Files.isDirectory(base.resolve("busy")), "another warmpool's processor, perhaps: left alone");
    }

    @Test
    void ownPathsReadEveryControllerOfAJointHierarchy() {
        assertEquals(
                Map.of("pids", "/a", "cpu", "/", "cpuacct", "/", "name=systemd", "/s"),
                Cgroups.ownPaths("8:pids:/a\n1:cpu,cpuacct:/\n9:name=systemd:/s\n0::/\n"));
    }

    @Test
    void aQuotaIsNeverBelowTheKernelsMillisecond() {
        assertEquals(1000, Cgroups.quotaUs(1));
        assertEquals(200_000, Cgroups.quotaUs(2000));
    }
}
