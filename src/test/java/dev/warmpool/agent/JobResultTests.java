package dev.warmpool.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import dev.warmpool.agent.io.ResultLimit;
import dev.warmpool.agent.io.Tail;
import dev.warmpool.agent.room.Sandbox;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a job leaves at {@code WARMPOOL_RESULT} and on its output, run as the agent runs it (in the
 * processor's resident bubblewrap room, or as a process of its own; as nobody when the tests run as
 * root, as a root manager's jobs do): a link, a fifo or a huge file fails the job with a sentence that
 * tells nothing of other files, and the processor takes the next job.
 */
class JobResultTests {
    @TempDir
    Path tmp;

    final List<Sandbox> sandboxes = new ArrayList<>();
    Path secret;

    @BeforeEach
    void secret() throws Exception {
        // the jobs' user passes through the test's dirs to its own, as through a processor's private dir
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
        secret = Files.writeString(tmp.resolve("secret.json"), "{\"stolen\": 1}");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
    }

    @AfterEach
    void closeRooms() {
        sandboxes.forEach(Sandbox::close);
    }

    Sandbox processor(boolean room) throws Exception {
        Path state = Files.createDirectories(tmp.resolve("state"));
        Map<String, String> env = new HashMap<>(Map.of("WARMPOOL_SANDBOX_HIDE", state.toString()));
        if (room) {
            env.put("WARMPOOL_SANDBOX", "bwrap");
            env.put("PATH", System.getenv("PATH"));
            env.put("WARMPOOL_ROOM_INIT", ResidentRoomTests.INIT);
        }
        if (ResultFile.AGENT_UID == 0) {
            env.put("WARMPOOL_JOB_UIDS", ResidentRoomTests.UIDS);
        }
        Sandbox s = Sandbox.fromEnv(env, Files.createDirectory(tmp.resolve(room ? "room" : "own")));
        sandboxes.add(s);
        if (room) {
            assertTrue(
                    s.room(null) != null,
                    "bubblewrap and wp-room are here (CI installs them): the processor has a room");
        }
        return s;
    }

    /** Runs one job to its end as the agent does (the next job's room readied), with results bounded at {@code limit}. */
    JobRun.Outcome run(Sandbox s, String id, String script, int limit) throws Exception {
        Path dir = s.newJobDir(id);
        AtomicReference<JobRun.Outcome> out = new AtomicReference<>();
        JobRun job = new JobRun(
                        new JobRun.Launch(
                                id,
                                "t",
                                List.of("sh", "-c", script),
                                Map.of(
                                        "PATH",
                                        "/usr/bin:/bin",
                                        "WARMPOOL_RESULT",
                                        dir.resolve(JobRun.RESULT).toString()),
                                null,
                                0,
                                dir),
                        s,
                        JobRun.Hooks.endOnly(out::set))
                .limitResult(limit);
        assertTimeoutPreemptively(Duration.ofSeconds(60), job::run, "the job ends: " + script);
        job.cleanUp();
        return out.get();
    }

    JobRun.Outcome run(Sandbox s, String id, String script) throws Exception {
        return run(s, id, script, ResultLimit.DEFAULT_BYTES);
    }

    /** The next job on the same processor runs and returns its metrics. */
    void nextJobRuns(Sandbox s) throws Exception {
        JobRun.Outcome next = run(s, "next", "echo '{\"loss\": 0.5}' > \"$WARMPOOL_RESULT\"");
        assertEquals("SUCCEEDED", next.state(), next.error());
        assertEquals("{\"loss\":0.5}", next.metrics());
    }

    static void revealsNothing(JobRun.Outcome o) {
        String all = o.metrics() + o.error() + o.logTail();
        assertFalse(all.contains("stolen"), all);
        assertFalse(all.contains("secret"), all);
    }

    @ParameterizedTest(name = "in a room: {0}")
    @ValueSource(booleans = {true, false})
    void aLinkToAFileTheJobCannotReadFailsTheJobAndTellsNothingOfIt(boolean room) throws Exception {
        Sandbox s = processor(room);
        JobRun.Outcome toSecret = run(s, "link", "ln -s " + secret + " \"$WARMPOOL_RESULT\"");
        assertEquals("FAILED", toSecret.state());
        assertEquals(ResultFile.NOT_ITS_OWN, toSecret.error());
        assertEquals("{}", toSecret.metrics());
        revealsNothing(toSecret);
        JobRun.Outcome toNothing = run(s, "missing", "ln -s " + tmp.resolve("nothing") + " \"$WARMPOOL_RESULT\"");
        assertEquals(toSecret.error(), toNothing.error(), "whether a file exists is not told either");
        assertEquals("{\"stolen\": 1}", Files.readString(secret));
        nextJobRuns(s);
    }

    @ParameterizedTest(name = "in a room: {0}")
    @ValueSource(booleans = {true, false})
    void aFifoADirOrALinkToAFifoFailsTheJobWithoutBlockingTheAgent(boolean room) throws Exception {
        Sandbox s = processor(room);
        for (String script : List.of(
                "mkfifo \"$WARMPOOL_RESULT\"",
                "mkdir \"$WARMPOOL_RESULT\"",
                "mkfifo \"$WARMPOOL_RESULT.fifo\" && ln -s \"$WARMPOOL_RESULT.fifo\" \"$WARMPOOL_RESULT\"")) {
            JobRun.Outcome o = run(s, "odd", script);
            assertEquals("FAILED", o.state(), script);
            assertEquals(ResultFile.NOT_ITS_OWN, o.error(), script);
        }
        nextJobRuns(s);
    }

    @ParameterizedTest(name = "in a room: {0}")
    @ValueSource(booleans = {true, false})
    void aResultOverTheBoundFailsTheJobWithTheBoundAndItsSetting(boolean room) throws Exception {
        Sandbox s = processor(room);
        JobRun.Outcome o = run(s, "big", "printf '{\"a\": \"%0200d\"}' 0 > \"$WARMPOOL_RESULT\"", 100);
        assertEquals("FAILED", o.state());
        assertEquals(
                "the result file (WARMPOOL_RESULT) is larger than 100 bytes, the limit"
                        + " (warmpool.runtime.max-result-bytes)",
                o.error());
        nextJobRuns(s);
    }

    @ParameterizedTest(name = "in a room: {0}")
    @ValueSource(booleans = {true, false})
    void a200MbResultLeavesTheAgentsHeapAloneAndTheNextJobRuns(boolean room) throws Exception {
        Sandbox s = processor(room);
        var threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        // the job's thread is this one: what it allocates is what the agent would
        JobRun.Outcome o = run(s, "huge", "head -c 200000000 /dev/zero | tr '\\0' 1 > \"$WARMPOOL_RESULT\"");
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertEquals("FAILED", o.state());
        assertEquals(ResultFile.tooLarge(ResultLimit.DEFAULT_BYTES), o.error());
        assertTrue(allocated < 16L << 20, "the agent allocated " + (allocated >> 20) + " MiB for a 200 MB result");
        nextJobRuns(s);
    }

    @ParameterizedTest(name = "in a room: {0}")
    @ValueSource(booleans = {true, false})
    void a100MbLineOfOutputLeavesTheAgentWorkingAndTheNextJobRuns(boolean room) throws Exception {
        Sandbox s = processor(room);
        JobRun.Outcome o =
                run(s, "loud", "head -c 100000000 /dev/zero | tr '\\0' x; echo; echo 'WARMPOOL_REPORT {\"step\": 1}'");
        assertEquals("SUCCEEDED", o.state(), o.error());
        assertTrue(o.logTail().length() <= Tail.JOB_BYTES, "the tail is the last 16 KiB");
        assertTrue(o.logTail().endsWith("xxx\nWARMPOOL_REPORT {\"step\": 1}\n"), o.logTail());
        nextJobRuns(s);
    }
}
