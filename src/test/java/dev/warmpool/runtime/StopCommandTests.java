package dev.warmpool.runtime;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.runtime.local.AgentNotes;
import dev.warmpool.store.RedisServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code stop} ends what one install's state dir notes (its manager, its agents and what they
 * left running, its Redis), whatever the environment it runs in, and nothing of another install's
 * that serves the same Redis port or has taken a noted pid.
 */
class StopCommandTests {
    /** What every agent's command line names here: both installs' agents serve "the default port". */
    static final String SAME_REDIS = "-Dwarmpool.redis=rediss://127.0.0.1:6380";

    @TempDir
    Path a;

    @TempDir
    Path b;

    final List<Process> started = new ArrayList<>();
    final List<RedisServer> redis = new ArrayList<>();

    @AfterEach
    void killWhatIsLeft() {
        started.forEach(p -> {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        });
        redis.forEach(RedisServer::stop);
    }

    /** An agent as {@code stop} sees one: its processor on its command line, a child of its own (a worker). */
    Process agent(String processorId) throws Exception {
        Process p = new ProcessBuilder(
                        "sh", "-c", "sleep 600 & wait", "-Dwarmpool.processor=" + processorId, SAME_REDIS)
                .start();
        started.add(p);
        await().atMost(Duration.ofSeconds(10)).until(() -> p.descendants().count() == 1);
        return p;
    }

    Process sleeper() throws Exception {
        Process p = new ProcessBuilder("sleep", "600").start();
        started.add(p);
        return p;
    }

    RedisServer redisOf(Path stateDir) {
        RedisServer r = RedisServer.persistent(RedisServer.freePort(), stateDir.resolve("redis"));
        redis.add(r);
        StopCommand.noteRedis(stateDir, Optional.of(stateDir.resolve("redis")));
        return r;
    }

    String stop(Path stateDir) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(
                0, StopCommand.run(stateDir, Optional.empty(), new PrintStream(out, true, StandardCharsets.UTF_8)));
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void stopsTheManagerAgentsWorkersAndRedisItsStateDirNotesAndNothingOfAnotherInstall() throws Exception {
        Process manager = sleeper();
        StopCommand.noteManager(a, manager.toHandle());
        Process agent1 = agent("pAAAAAAAA1");
        Process agent2 = agent("pAAAAAAAA2");
        AgentNotes.note(a, "pAAAAAAAA1", agent1.toHandle());
        AgentNotes.note(a, "pAAAAAAAA2", agent2.toHandle());
        List<ProcessHandle> workers = new ArrayList<>(agent1.descendants().toList());
        workers.addAll(agent2.descendants().toList());
        ProcessHandle redisOfA = redisOf(a).process().orElseThrow().toHandle();

        Process managerOfB = sleeper();
        StopCommand.noteManager(b, managerOfB.toHandle());
        Process agentOfB = agent("pBBBBBBBB1");
        AgentNotes.note(b, "pBBBBBBBB1", agentOfB.toHandle());
        ProcessHandle workerOfB = agentOfB.descendants().findFirst().orElseThrow();
        ProcessHandle redisOfB = redisOf(b).process().orElseThrow().toHandle();
        // a note of A's whose pid another install's agent holds now (as after a reboot): not A's
        AgentNotes.note(a, "pAAAAAAAA3", agentOfB.toHandle());

        String said = stop(a);

        assertTrue(said.contains("stopped 1 manager(s) and 2 agent(s)"), said);
        assertTrue(said.contains("Redis: stopped"), said);
        await().atMost(Duration.ofSeconds(10)).until(() -> ended(manager.toHandle()));
        for (ProcessHandle p : List.of(agent1.toHandle(), agent2.toHandle(), redisOfA)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> ended(p));
        }
        for (ProcessHandle w : workers) {
            await().atMost(Duration.ofSeconds(10)).until(() -> ended(w));
        }
        assertTrue(managerOfB.isAlive(), "B's manager runs on");
        assertTrue(agentOfB.isAlive(), "B's agent runs on");
        assertTrue(workerOfB.isAlive(), "B's worker runs on");
        assertTrue(redisOfB.isAlive(), "B's Redis runs on");
        assertFalse(Files.exists(a.resolve("agents/pAAAAAAAA1")), "the note of an agent that was stopped goes");
    }

    @Test
    void withNoManagerRunningStopStillEndsTheAgentsItLeft() throws Exception {
        Process gone = sleeper();
        StopCommand.noteManager(a, gone.toHandle());
        gone.destroyForcibly().waitFor();
        Process agent = agent("pAAAAAAAA1");
        AgentNotes.note(a, "pAAAAAAAA1", agent.toHandle());

        String said = stop(a);

        assertTrue(said.contains("stopped 0 manager(s) and 1 agent(s)"), said);
        await().atMost(Duration.ofSeconds(10)).until(() -> ended(agent.toHandle()));
    }

    @Test
    void aProcessThatTookANotedPidSinceIsLeftAlone() throws Exception {
        Process other = sleeper();
        // the manager's note names the pid with another start time: the process that had it is gone
        Path note = StopCommand.noteManager(a, other.toHandle());
        Files.writeString(note, "1");

        String said = stop(a);

        assertTrue(said.contains("stopped 0 manager(s)"), said);
        assertTrue(other.isAlive());
    }

    /** Gone, or a zombie that init has not reaped yet (a zombie counts as alive for ProcessHandle). */
    static boolean ended(ProcessHandle p) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z") || !p.isAlive();
        } catch (IOException e) {
            return true;
        }
    }
}
