package dev.warmpool.agent;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.agent.io.Tail;
import dev.warmpool.agent.room.HostTmp;
import dev.warmpool.agent.room.ResidentRoom;
import dev.warmpool.agent.room.Sandbox;
import dev.warmpool.agent.worker.Worker;
import dev.warmpool.agent.worker.WorkerSlot;
import dev.warmpool.testing.Ci;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs in a processor's resident sandbox (bwrap once, a launcher in it; CI installs bubblewrap):
 * each job still starts in a clean room, and nothing one job leaves reaches the next.
 */
class ResidentRoomTests {
    @TempDir
    Path tmp;

    final List<Sandbox> sandboxes = new ArrayList<>();
    final List<String> reports = new CopyOnWriteArrayList<>();

    static final boolean ROOT = uid() == 0;

    static int uid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The rooms' init as the build makes it (src/main/c; CI installs musl-tools). */
    static final String INIT = Path.of("target", "wp-room").toAbsolutePath().toString();

    /** The range the local runtime gives a root manager's processors their jobs' uid from. */
    static final String UIDS = "1879048192-1879113727";

    static boolean jobUid(String id) {
        long uid = Long.parseLong(id.trim());
        return uid >= 1879048192L && uid <= 1879113727L;
    }

    /** A processor's sandbox as the local runtime asks for it: bwrap, the state dir hidden, a uid of its own for root. */
    Sandbox processor(String name) throws Exception {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
        Path state = tmp.resolve("state");
        if (!Files.exists(state)) {
            Files.createDirectory(state);
        }
        Map<String, String> env = new HashMap<>(Map.of(
                "WARMPOOL_SANDBOX",
                "bwrap",
                "WARMPOOL_SANDBOX_HIDE",
                state.toString(),
                "PATH",
                System.getenv("PATH"),
                "WARMPOOL_ROOM_INIT",
                INIT));
        if (ROOT) {
            env.put("WARMPOOL_JOB_UIDS", UIDS);
        }
        Sandbox s = Sandbox.fromEnv(env, Files.createDirectory(tmp.resolve(name)));
        sandboxes.add(s);
        return s;
    }

    @AfterEach
    void closeRooms() {
        sandboxes.forEach(Sandbox::close);
    }

    JobRun job(Sandbox s, String id, String script, AtomicReference<JobRun.Outcome> out) throws Exception {
        return job(s, id, script, Map.of("PATH", "/usr/bin:/bin"), out);
    }

    JobRun job(Sandbox s, String id, String script, Map<String, String> env, AtomicReference<JobRun.Outcome> out)
            throws Exception {
        return job(s, id, List.of("sh", "-c", script), env, out);
    }

    JobRun job(Sandbox s, String id, List<String> command, Map<String, String> env, AtomicReference<JobRun.Outcome> out)
            throws Exception {
        Path dir = s.newJobDir(id);
        return new JobRun(
                new JobRun.Launch(id, "t", command, env, null, 0, dir),
                s,
                new JobRun.Hooks(out::set, (r, json) -> reports.add(json), () -> null));
    }

    /** Runs a job to its end, then readies the room for the next (its dir removed too), as the agent does; its outcome. */
    JobRun.Outcome run(Sandbox s, String id, String script) throws Exception {
        AtomicReference<JobRun.Outcome> out = new AtomicReference<>();
        JobRun r = job(s, id, script, out);
        r.run();
        r.cleanUp();
        return out.get();
    }

    static ResidentRoom room(Sandbox s) {
        ResidentRoom r = s.room(null);
        assertNotNull(r, "bubblewrap and wp-room are here: the processor has a resident room");
        return r;
    }

    /**
     * Job 1 then job 2 in one room: a change of the host's /tmp in between (another process made
     * a file there) starts a new room, which would prove nothing, so the pair runs again.
     */
    List<JobRun.Outcome> twoJobsInOneRoom(Sandbox s, String first, String second) {
        List<JobRun.Outcome> out = new ArrayList<>();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            out.clear();
            long rooms = room(s).started();
            out.add(run(s, "a" + System.nanoTime(), first));
            out.add(run(s, "b" + System.nanoTime(), second));
            return room(s).started() == rooms;
        });
        return out;
    }

    @Test
    void aJobsTmpAndShmFilesAreGoneForTheNextJobOfTheProcessor() throws Exception {
        Sandbox s = processor("p1");
        List<JobRun.Outcome> o = twoJobsInOneRoom(
                s,
                "echo x > /tmp/left; mkdir -p /tmp/d/e && echo y > /tmp/d/e/f; echo z > /dev/shm/left; "
                        + "ln -s /etc /tmp/link; ls /tmp /dev/shm",
                "ls -A /tmp /dev/shm; cat /tmp/left /dev/shm/left 2>&1");
        assertEquals("SUCCEEDED", o.get(0).state(), o.get(0).logTail());
        assertTrue(
                o.get(0).logTail().contains("left"),
                "job 1 wrote them: " + o.get(0).logTail());
        String second = o.get(1).logTail();
        assertFalse(second.contains("left\n") || second.contains("link") || second.contains("\nd\n"), second);
        assertTrue(second.contains("No such file"), second);
    }

    @Test
    void whatAJobLeftRunningIsGoneBeforeTheNextJobStarts() throws Exception {
        Sandbox s = processor("p2");
        String tag = "7" + (System.nanoTime() % 100000);
        JobRun.Outcome o = run(
                s,
                "daemons",
                "setsid sleep " + tag + "1 & (sleep " + tag + "2 &); nohup sleep " + tag + "3 >/dev/null 2>&1 & "
                        + "sh -c 'sleep " + tag + "4 & exit 0'; exit 0");
        assertEquals("SUCCEEDED", o.state(), o.logTail());
        // the job's end is reported once its PID namespace is gone: no wait needed
        for (int i = 1; i <= 4; i++) {
            assertFalse(SandboxTests.alive(tag + i), "sleep " + tag + i + " outlived its job");
        }
        JobRun.Outcome next = run(s, "next", "ps -e -o comm= | sort | uniq -c");
        assertFalse(next.logTail().contains("sleep"), next.logTail());
    }

    @Test
    void aSysVSegmentAJobLeftIsGoneForTheNextJob() throws Exception {
        // ipcmk and ipcs are util-linux's, which the sandbox needs anyway (unshare): no skip
        Sandbox s = processor("p3");
        List<JobRun.Outcome> o = twoJobsInOneRoom(
                s, "ipcmk -M 4096 && ipcmk -S 2 && ipcmk -Q && ipcs -m -s -q", "ipcs -m -s -q | grep -c '^0x' || true");
        assertTrue(o.get(0).logTail().contains("Shared memory id"), o.get(0).logTail());
        assertEquals("0", o.get(1).logTail().trim(), "job 2 sees no segment, semaphore or queue of job 1");
    }

    @Test
    void aKeyAJobPutInItsUsersKeyringIsGoneForTheNextJob() throws Exception {
        // keyctl is keyutils', which .ci/run installs: no skip
        Sandbox s = processor("p7");
        List<JobRun.Outcome> o = twoJobsInOneRoom(
                s,
                "keyctl add user wp-left secret @u >/dev/null && keyctl rlist @u",
                "keyctl rlist @u; echo end; keyctl request user wp-left 2>&1");
        assertTrue(
                o.get(0).logTail().matches("\\d+\\s*"),
                "job 1 put a key in its user's keyring: " + o.get(0).logTail());
        assertTrue(
                o.get(1).logTail().matches("(?s)\\s*end\n.*not available.*"),
                "job 2 finds no key of job 1: " + o.get(1).logTail());
    }

    /**
     * A processor whose container is the room (the docker runtime's agents): no bwrap, the init is
     * the agent's child, and the jobs run as the processor's uid; the agent here is this test's JVM.
     */
    Sandbox containerProcessor(String name) throws Exception {
        Assumptions.assumeTrue(
                ROOT || System.getenv("CI") == null, "only root runs jobs as another uid; .ci/run runs as root");
        assertTrue(ROOT, "the room of a container needs root (CI runs as root)");
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
        Sandbox s = Sandbox.fromEnv(
                Map.of(
                        "WARMPOOL_SANDBOX",
                        Sandbox.ROOM,
                        "WARMPOOL_JOB_UIDS",
                        UIDS,
                        "WARMPOOL_ROOM_INIT",
                        INIT,
                        "PATH",
                        System.getenv("PATH")),
                Files.createDirectory(tmp.resolve(name)));
        sandboxes.add(s);
        return s;
    }

    @Test
    void inAContainersRoomAJobCannotReadItsAgentAndLeavesNothingForTheNext() throws Exception {
        Sandbox s = containerProcessor("c1");
        String tag = "6" + (System.nanoTime() % 100000);
        long agent = ProcessHandle.current().pid();
        JobRun.Outcome first = run(
                s,
                "c-first",
                "id -u; grep -E '^(CapEff|NoNewPrivs|Groups)' /proc/self/status; "
                        + "cat /proc/" + agent + "/environ >/dev/null 2>&1 && echo READ-ENVIRON; "
                        + "head -c1 /proc/" + agent + "/mem >/dev/null 2>&1 && echo READ-MEM; "
                        + "echo x > /tmp/wp-left-" + tag + "; echo x > /dev/shm/wp-left-" + tag + "; "
                        + "ipcmk -M 4096 >/dev/null; "
                        + "setsid sleep " + tag + "1 & (sleep " + tag + "2 &); exit 0");
        assertEquals("SUCCEEDED", first.state(), first.logTail() + first.error());
        String out = first.logTail();
        assertTrue(jobUid(out.substring(0, out.indexOf('\n'))), "a uid of the processor's own: " + out);
        assertTrue(out.contains("CapEff:\t0000000000000000"), out);
        assertTrue(out.contains("NoNewPrivs:\t1"), out);
        assertTrue(out.matches("(?s).*Groups:\\s*\n.*"), "no supplementary groups: " + out);
        assertFalse(out.contains("READ-"), "the agent's environment and memory are not the job's: " + out);
        for (int i = 1; i <= 2; i++) {
            assertFalse(SandboxTests.alive(tag + i), "sleep " + tag + i + " outlived its job");
        }
        assertFalse(Files.exists(Path.of("/tmp/wp-left-" + tag)), "the job's /tmp file went with it");
        assertFalse(Files.exists(Path.of("/dev/shm/wp-left-" + tag)), "the job's /dev/shm file went with it");
        long rooms = room(s).started();
        JobRun.Outcome next = run(s, "c-next", "ipcs -m | grep -c \"^0x.* $(id -u) \" || true");
        assertEquals("0\n", next.logTail(), "job 2 finds no segment of job 1's");
        assertEquals(rooms, room(s).started(), "the same room: its init cleared it, it was not replaced");
    }

    @Test
    void aTreeDeeperThanAnyRecursionIsGoneForTheNextJob() throws Exception {
        Sandbox s = processor("p8");
        List<JobRun.Outcome> o = twoJobsInOneRoom(
                s,
                "cd /tmp && for i in $(seq 1 600); do mkdir d && cd d || exit 1; done; touch bottom; chmod 000 ..; echo made",
                "ls -A /tmp | grep -c '^d$\\|lifted' || true");
        assertEquals("made\n", o.get(0).logTail(), o.get(0).error());
        assertEquals("0\n", o.get(1).logTail(), "the 600-deep tree went before job 2");
    }

    @Test
    void aContainersRoomWhoseInitEndedIsNotTrustedAgainAndTheProcessorIsHandedBack() throws Exception {
        Sandbox s = containerProcessor("c2");
        assertEquals("SUCCEEDED", run(s, "c-first", "true").state());
        assertFalse(s.roomLost());
        ResidentRoom room = room(s);
        AtomicReference<JobRun.Outcome> out = new AtomicReference<>();
        JobRun r = job(s, "c-long", "touch started; sleep 30", out);
        CompletableFuture<Void> running = CompletableFuture.runAsync(r);
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(r.dir.resolve("started")));
        ProcessHandle.of(room.pid()).orElseThrow().destroyForcibly();
        running.get(10, TimeUnit.SECONDS);
        r.cleanUp();
        assertEquals("FAILED", out.get().state());
        assertTrue(s.roomLost(), "what stopped the init may still be in the container: the processor goes");
    }

    @Test
    void whenTheRoomDiesTheRunningJobFailsSayingSoAndTheNextJobGetsANewRoom() throws Exception {
        Sandbox s = processor("p4");
        assertEquals("SUCCEEDED", run(s, "first", "true").state());
        ResidentRoom room = room(s);
        long rooms = room.started();
        AtomicReference<JobRun.Outcome> out = new AtomicReference<>();
        JobRun r = job(s, "long", "touch started; sleep 30", out);
        CompletableFuture<Void> running = CompletableFuture.runAsync(r);
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(r.dir.resolve("started")));
        ProcessHandle.of(room.pid()).orElseThrow().destroyForcibly();
        running.get(10, TimeUnit.SECONDS);
        r.cleanUp();
        assertEquals("FAILED", out.get().state());
        assertTrue(out.get().error().contains("sandbox ended"), out.get().error());
        JobRun.Outcome next = run(s, "next", "echo fine");
        assertEquals("SUCCEEDED", next.state(), next.logTail() + next.error());
        assertEquals("fine\n", next.logTail());
        assertTrue(room(s).started() > rooms, "a new room");
    }

    /**
     * Another processor's dir in the host's /tmp, listed for the room (bwrap hides it with a mount),
     * went away before the room started (that processor ended): bwrap cannot make the mount point
     * in the read-only view and the start fails. The room is tried again with a fresh listing, not
     * given up for a bwrap per job (CI's IsolationIT, 2026-12-07: the job failed). The listing is
     * kept while /tmp's time stays, so the test puts /tmp's time back after the removal (root).
     */
    @Test
    void anEntryOfTheHostsTmpThatWentAwayBeforeTheRoomStartedDoesNotCostTheRoom() throws Exception {
        rootOrNotCi("setting /tmp's time");
        Sandbox s = processor("p9");
        Path gone = Files.createDirectory(Path.of("/tmp", HostTmp.AGENT_DIRS + (System.nanoTime() & 0xffffffL) + "9"));
        try {
            Files.writeString(gone.resolve("job"), "x");
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                run(s, "w" + System.nanoTime(), "true");
                return room(s).listingKept()
                        && HostTmp.shown(null).contains(HostTmp.HOST_TMP + "/" + gone.getFileName());
            });
            ResidentRoom room = room(s);
            FileTime stamp = Files.getLastModifiedTime(Path.of("/tmp"));
            long rooms = room.started();
            ProcessHandle up = ProcessHandle.of(room.pid()).orElseThrow();
            Files.delete(gone.resolve("job"));
            Files.delete(gone);
            Files.setLastModifiedTime(Path.of("/tmp"), stamp);
            up.destroyForcibly();
            await().atMost(Duration.ofSeconds(10)).until(() -> !up.isAlive());
            JobRun.Outcome after = run(s, "after", "echo fine");
            assertEquals("SUCCEEDED", after.state(), after.logTail() + after.error());
            assertNotNull(s.room(null), "the processor keeps a resident room, not a bwrap per job");
            assertTrue(room.started() > rooms, "a new room");
        } finally {
            if (Files.exists(gone)) {
                Files.deleteIfExists(gone.resolve("job"));
                Files.deleteIfExists(gone);
            }
        }
    }

    /** Root only (a test of root's powers); CI runs as root, so there it fails rather than skips. */
    static void rootOrNotCi(String what) {
        Ci.require(ROOT, what + " needs root", "CI (.ci/run) runs as root");
    }

    /**
     * A file put in the host's /tmp after the room started reaches the next job at its /tmp path,
     * in the same room (its link made in the live room: no new room for each change of a busy
     * host's /tmp), and one removed is gone from it. Jobs of another user than the agent (root).
     */
    @Test
    void whatComesAndGoesInTheHostsTmpReachesTheNextJobWithoutANewRoom() throws Exception {
        rootOrNotCi("jobs of another user");
        Sandbox s = processor("p10");
        AtomicReference<String> seen = new AtomicReference<>();
        // another process's change of /tmp that needs hiding (a socket, an agent's dir) does replace
        // the room; then the pair runs again
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            assertEquals(
                    "SUCCEEDED", run(s, "first" + System.nanoTime(), "true").state());
            long rooms = room(s).started();
            Path fresh = Files.createTempDirectory(Path.of("/tmp"), "wp-fresh");
            try {
                Files.setPosixFilePermissions(fresh, PosixFilePermissions.fromString("rwxr-xr-x"));
                Files.writeString(fresh.resolve("data"), "seen\n");
                JobRun.Outcome o = run(s, "second" + System.nanoTime(), "cat /tmp/" + fresh.getFileName() + "/data");
                seen.set(o.logTail());
            } finally {
                Files.deleteIfExists(fresh.resolve("data"));
                Files.deleteIfExists(fresh);
            }
            JobRun.Outcome gone =
                    run(s, "third" + System.nanoTime(), "test -e /tmp/" + fresh.getFileName() + " || echo gone");
            assertEquals("seen\n", seen.get(), "the new entry of the host's /tmp, read by the next job");
            assertEquals("gone\n", gone.logTail(), "the entry removed, gone for the job after");
            return room(s).started() == rooms;
        });
    }

    /**
     * A persistent worker keeps its warm state (the same process) when an entry comes to the host's
     * /tmp, and is started afresh when the host's /tmp holds something new to hide (a socket).
     */
    @Test
    void aPersistentWorkerOutlivesAnEntryThatCameToTheHostsTmpButNotANewSocket() throws Exception {
        Sandbox s = processor("p12");
        WorkerSlot slot = new WorkerSlot(Map.of("PATH", "/usr/bin:/bin"), "p12", "w", s, 1 << 20);
        List<String> command = List.of(
                "/bin/bash",
                "-c",
                "w=$(cat /proc/sys/kernel/random/uuid); while read job; do echo \"worker $w\"; echo '{\"status\": \"SUCCEEDED\"}'; done");
        Path socket = Path.of("/tmp", "wp-socket-" + System.nanoTime());
        try {
            // another process's change of /tmp that needs hiding would replace the worker too: then again
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                Worker before = slot.get(command, Map.of(), null);
                String first = served(before);
                Path fresh = Files.createTempDirectory(Path.of("/tmp"), "wp-fresh");
                try {
                    Worker after = slot.get(command, Map.of(), null);
                    return after == before && served(after).equals(first);
                } finally {
                    Files.deleteIfExists(fresh);
                }
            });
            Worker before = slot.get(command, Map.of(), null);
            String first = served(before);
            try (var server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
                server.bind(UnixDomainSocketAddress.of(socket));
                Worker after = slot.get(command, Map.of(), null);
                assertTrue(after != before, "a new worker, whose bwrap hides the socket");
                assertFalse(served(after).equals(first), "another process: " + first);
            }
        } finally {
            slot.kill();
            Files.deleteIfExists(socket);
        }
    }

    /** What the worker printed for one job (a name it drew at its start). */
    static String served(Worker w) throws Exception {
        Tail log = new Tail(4096);
        assertNotNull(w.call("{\"id\": \"j\"}", report -> {}, log), log.text());
        return log.text().trim();
    }

    /** A socket made in the host's /tmp after the room started is not reachable by the next job: the room is replaced. */
    @Test
    void aSocketMadeInTheHostsTmpAfterTheRoomStartedIsNotReachable() throws Exception {
        Sandbox s = processor("p11");
        assertEquals("SUCCEEDED", run(s, "first", "true").state());
        long rooms = room(s).started();
        Path socket = Path.of("/tmp", "wp-socket-" + System.nanoTime());
        try (var server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            JobRun.Outcome o = run(
                    s,
                    "second",
                    "test -S " + HostTmp.HOST_TMP + "/" + socket.getFileName() + " && echo socket;" + " test -e "
                            + socket + " || echo no-socket-link");
            assertEquals("no-socket-link\n", o.logTail());
            assertTrue(room(s).started() > rooms, "a new room, the socket hidden");
        } finally {
            Files.deleteIfExists(socket);
        }
    }

    @Test
    void twoProcessorsDoNotSeeEachOthersTmp() throws Exception {
        Sandbox a = processor("pa");
        Sandbox b = processor("pb");
        AtomicReference<JobRun.Outcome> out = new AtomicReference<>();
        JobRun r = job(a, "writer", "echo a > /tmp/mine; echo a > /dev/shm/mine; touch written; sleep 30", out);
        CompletableFuture<Void> running = CompletableFuture.runAsync(r);
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(r.dir.resolve("written")));
        JobRun.Outcome other = run(
                b,
                "reader",
                "cat /tmp/mine /dev/shm/mine 2>/dev/null; ls -A /tmp/.warmpool-host-tmp/" + tmp.getFileName()
                        + "; echo end");
        r.kill(JobRun.Forced.CANCELLED);
        running.get(10, TimeUnit.SECONDS);
        r.cleanUp();
        assertEquals("end\n", other.logTail(), "nothing of processor a, nor the test's dir with a's jobs");
        assertEquals("CANCELLED", out.get().state());
    }

    @Test
    void aJobGetsExactlyItsEnvItsExitCodeItsUserAndCannotEndItsOwnLogEarly() throws Exception {
        Sandbox s = processor("p5");
        Map<String, String> env = new TreeMap<>(Map.of("PATH", "/usr/bin:/bin", "V", "it's \"a\"\n$x `y`", "B", ""));
        AtomicReference<JobRun.Outcome> out = new AtomicReference<>();
        JobRun first = job(s, "env", List.of("cat", "/proc/self/environ"), env, out);
        first.run();
        first.cleanUp();
        assertEquals("SUCCEEDED", out.get().state(), out.get().logTail());
        assertEquals(
                new HashSet<>(env.entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .toList()),
                new HashSet<>(List.of(out.get().logTail().split("\0"))),
                "exactly its own env, as the init passed it to execve");
        JobRun.Outcome o =
                run(s, "marker", "id -u; printf '\\001%032x 0\\n' 0; printf '\\0010123 0\\n'; echo after; exit 3");
        assertEquals("FAILED", o.state());
        assertEquals(3, o.exitCode());
        String id = o.logTail().substring(0, o.logTail().indexOf('\n'));
        assertTrue(ROOT ? jobUid(id) : id.equals(Integer.toString(uid())), "the jobs' uid: " + id);
        assertEquals(
                "\001" + "0".repeat(32) + " 0\n\0010123 0\nafter\n", o.logTail().substring(id.length() + 1));
        assertEquals("0\n1\n2\n3\n", run(s, "fds", "ls /proc/self/fd").logTail(), "no fd of the init's (3: ls's own)");
        assertEquals(137, run(s, "self-kill", "kill -9 $$").exitCode(), "a job killed by a signal: 128 + it");
        assertEquals(127, run(s, "missing", "exec /no/such/command").exitCode());
    }

    @Test
    void reportsStreamWhileTheJobRunsAndCancelEndsIt() throws Exception {
        Sandbox s = processor("p6");
        AtomicReference<JobRun.Outcome> out = new AtomicReference<>();
        JobRun r = job(
                s,
                "live",
                "echo 'WARMPOOL_REPORT {\"step\": 1}'; while [ ! -e go ]; do sleep 0.05; done; sleep 30",
                out);
        CompletableFuture<Void> running = CompletableFuture.runAsync(r);
        await().atMost(Duration.ofSeconds(10)).until(() -> reports.contains("{\"step\": 1}"));
        Files.createFile(r.dir.resolve("go"));
        r.kill(JobRun.Forced.CANCELLED);
        running.get(10, TimeUnit.SECONDS);
        assertEquals("CANCELLED", out.get().state());
        assertEquals(143, out.get().exitCode(), "SIGTERM, as a job of its own process got");
    }
}
