package dev.warmpool.agent.room;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.testing.Ci;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A processor's bounds on this host's real cgroups (where this user may make them: root on a v1 or
 * v2 host) or its rlimits: a process and what it started join them, and a processor that goes
 * takes its cgroups and what was left in them along.
 */
class RoomLimitsTests {
    final String id = "test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    Process process;

    @AfterEach
    void cleanUp() {
        if (process != null) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
        RoomLimits.remove(id);
    }

    static boolean cgroupsHere() {
        return !RoomLimits.host().startsWith("rlimits");
    }

    /** The cgroup paths of a process, from /proc/PID/cgroup. */
    static String cgroupOf(long pid) throws Exception {
        return Files.readString(Path.of("/proc", Long.toString(pid), "cgroup"));
    }

    @Test
    void aRoomAndWhatItStartedJoinTheProcessorsCgroupsWithTheirBounds() throws Exception {
        Ci.require(cgroupsHere(), "no cgroup of ours here (" + RoomLimits.host() + ")", ".ci/run runs as root");
        RoomLimits limits = RoomLimits.of(id, new RoomLimits.Bounds(250, 64L << 20, 32));
        process = new ProcessBuilder("sh", "-c", "sleep 300 & wait").start();
        await().atMost(Duration.ofSeconds(5)).until(() -> process.children().count() == 1);
        long child = process.children().findFirst().orElseThrow().pid();

        limits.apply(process.pid());

        assertTrue(cgroupOf(process.pid()).contains("/warmpool/" + id), cgroupOf(process.pid()));
        assertTrue(cgroupOf(child).contains("/warmpool/" + id), "a child started before the move is moved too");
        Cgroups c = Cgroups.find(RoomLimits.CGROUP_ROOT, Files.readString(Path.of("/proc/self/cgroup")));
        Path pids = c.existing(id).stream()
                .filter(d -> Files.exists(d.resolve("pids.max")))
                .findFirst()
                .orElseThrow();
        assertEquals("32", Files.readString(pids.resolve("pids.max")).trim());
        assertEquals(Set.of(process.pid(), child), Set.copyOf(Cgroups.procs(pids)));

        assertEquals(List.of(), RoomLimits.remove(id));
        await().atMost(Duration.ofSeconds(5)).until(() -> !process.isAlive());
        assertEquals(List.of(), c.existing(id), "the processor is gone: so are its cgroups");
    }

    @Test
    void aForkBombInTheRoomStopsAtItsPidsBound() throws Exception {
        Ci.require(cgroupsHere(), "no cgroup of ours here (" + RoomLimits.host() + ")", ".ci/run runs as root");
        RoomLimits limits = RoomLimits.of(id, new RoomLimits.Bounds(0, 0, 20));
        // the shell waits on stdin until it is bounded, then tries for 40 sleepers
        process = new ProcessBuilder(
                        "sh", "-c", "read go; for i in $(seq 40); do sleep 60 >/dev/null 2>&1 & done; echo started")
                .redirectErrorStream(true)
                .start();
        limits.apply(process.pid());
        process.getOutputStream().write("go\n".getBytes());
        process.getOutputStream().close();
        String out = new String(process.getInputStream().readAllBytes());
        Path pids =
                Cgroups.find(RoomLimits.CGROUP_ROOT, Files.readString(Path.of("/proc/self/cgroup")))
                        .existing(id)
                        .stream()
                        .filter(d -> Files.exists(d.resolve("pids.max")))
                        .findFirst()
                        .orElseThrow();
        assertTrue(out.toLowerCase(Locale.ROOT).contains("fork"), out);
        int left = Cgroups.procs(pids).size();
        assertTrue(left >= 15 && left <= 20, left + " sleepers: as many as the bound lets be");
    }

    @Test
    void withoutCgroupsTheBoundsAreRlimits() {
        RoomLimits limits = new RoomLimits("p", new RoomLimits.Bounds(500, 64L << 20, 100), null, "no cgroup here");
        assertEquals(List.of("--nproc=100:100", "--as=67108864:67108864"), limits.rlimitArgs());
        assertTrue(limits.describe().startsWith("rlimits"), limits.describe());
        assertTrue(limits.describe().contains("cpu not bounded"), limits.describe());
        assertTrue(limits.describe().contains("no cgroup here"), limits.describe());
    }

    @Test
    void rlimitsHoldOnTheRoomAndWhatItStartsLater() throws Exception {
        Ci.require(Files.isExecutable(Path.of(RoomLimits.PRLIMIT)), "no " + RoomLimits.PRLIMIT, "util-linux has it");
        RoomLimits limits = new RoomLimits(id, new RoomLimits.Bounds(0, 256L << 20, 0), null, "a test");
        process = new ProcessBuilder(
                        "sh", "-c", "read go; prlimit --pid $$ --as --output SOFT --noheadings; sh -c 'ulimit -v'")
                .redirectErrorStream(true)
                .start();
        limits.apply(process.pid());
        process.getOutputStream().write("go\n".getBytes());
        process.getOutputStream().close();
        String out = new String(process.getInputStream().readAllBytes()).trim();
        assertEquals(List.of(Long.toString(256L << 20), Long.toString(256L * 1024)), List.of(out.split("\\s+")));
        assertEquals(0, process.waitFor());
    }
}
