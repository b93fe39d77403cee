package dev.warmpool.reconcile;

import static dev.warmpool.testing.Api.awaitEnd;
import static dev.warmpool.testing.Api.job;
import static dev.warmpool.testing.Api.pool;
import static dev.warmpool.testing.Api.putPool;
import static dev.warmpool.testing.Api.submit;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.runtime.local.LocalAgents;
import dev.warmpool.testing.Tokens;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A processor whose agent is stuck while its job runs (here SIGSTOPped: no thread of it runs, as
 * in a GC death spiral) is caught by the manager: the job ends TIMED_OUT within its timeout plus
 * the grace, the processor is replaced, and the pool goes on working. The heartbeat lease is a
 * minute, so only the deadline can explain a quick end.
 */
@QuarkusTest
@TestProfile(OverdueTests.LongLeaseShortGrace.class)
class OverdueTests {
    static {
        Tokens.asAdminByDefault();
    }

    /** Leases far longer than the waits below, and a grace of a second. */
    public static class LongLeaseShortGrace implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "warmpool.heartbeat.timeout", "60s",
                    "warmpool.reconcile.orphan-grace", "60s",
                    "warmpool.reconcile.timeout-grace", "1s");
        }
    }

    static final int TIMEOUT_SECONDS = 4;

    @ConfigProperty(name = "quarkus.redis.hosts")
    String redisUrl;

    /** What the test stopped: the agent and its job's processes, killed after the test. */
    final List<ProcessHandle> stopped = new ArrayList<>();

    static void signal(String sig, long pid) throws Exception {
        new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).start().waitFor();
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (ProcessHandle h : stopped) {
            if (h.isAlive()) {
                h.destroyForcibly();
                signal("CONT", h.pid()); // a stopped process dies of SIGKILL at once; CONT costs nothing
            }
        }
    }

    @Test
    void aJobWhoseAgentIsStuckEndsTimedOutWithinItsTimeoutAndGraceAndTheProcessorIsReplaced() throws Exception {
        putPool(
                "stuck",
                Map.of("command", List.of("sh", "-c", "sleep \"${1:-60}\"", "job"), "minIdle", 1, "maxSize", 2));
        String id = submit(Map.of("type", "stuck", "timeoutSeconds", TIMEOUT_SECONDS, "maxAttempts", 3));
        await().atMost(Duration.ofSeconds(30)).until(() -> "RUNNING".equals(job(id).getString("state")));
        String first = job(id).getString("processor");
        long pid = LocalAgents.pidOf(redisUrl, first).orElseThrow();
        ProcessHandle agent = ProcessHandle.of(pid).orElseThrow();
        signal("STOP", pid);
        long stoppedAt = System.nanoTime();
        stopped.add(agent);
        agent.descendants().forEach(stopped::add);

        // the agent's own timeout cannot fire: every one of its threads is stopped. Timeout and
        // grace (1 s), plus a reconcile interval (1 s) and a loaded machine's slack
        await().atMost(Duration.ofSeconds(TIMEOUT_SECONDS + 1 + 1 + 8))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> job(id).getBoolean("ended"));
        long took = (System.nanoTime() - stoppedAt) / 1_000_000;
        JsonPath j = job(id);
        assertEquals("TIMED_OUT", j.getString("state"));
        assertTrue(
                j.getString("error").contains("did not end the job"), "the manager ended it: " + j.getString("error"));
        assertEquals(1, j.getInt("attempts"), "a timed out job is not run again, as with the agent's own timeout");
        assertTrue(took >= (TIMEOUT_SECONDS - 1) * 1000, "not before its timeout: " + took + " ms");

        // replaced: a new processor runs the pool's next job while the stuck one is stopped
        String next = submit(Map.of("type", "stuck", "args", List.of("0")));
        JsonPath n = awaitEnd(next);
        assertEquals("SUCCEEDED", n.getString("state"), n.getString("error"));
        assertNotEquals(first, n.getString("processor"));
        assertTrue(!pool("stuck").getList("processors.id").contains(first), "the stuck processor left Redis");
        await().atMost(Duration.ofSeconds(40))
                .until(() ->
                        !agent.isAlive()); // the runtime's stop: SIGTERM, then SIGKILL for a process that ignores it
    }
}
