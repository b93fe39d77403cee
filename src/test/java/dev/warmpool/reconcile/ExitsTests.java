package dev.warmpool.reconcile;

import static dev.warmpool.testing.Api.awaitIdle;
import static dev.warmpool.testing.Api.job;
import static dev.warmpool.testing.Api.pool;
import static dev.warmpool.testing.Api.putPool;
import static dev.warmpool.testing.Api.submit;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.warmpool.runtime.local.LocalAgents;
import dev.warmpool.testing.Tokens;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * A processor whose agent the local runtime saw exit is lost at once: its job runs again on a
 * replacement, and the replacement starts, long before the heartbeat lease (here a minute) or the
 * orphan grace would have said anything.
 */
@QuarkusTest
@TestProfile(ExitsTests.LongLease.class)
class ExitsTests {
    static {
        Tokens.asAdminByDefault();
    }

    /** Leases far longer than the waits below: only the exit itself can explain a quick replacement. */
    public static class LongLease implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "warmpool.heartbeat.timeout", "60s",
                    "warmpool.reconcile.orphan-grace", "60s");
        }
    }

    static final Duration WELL_BEFORE_THE_LEASE = Duration.ofSeconds(25);

    @ConfigProperty(name = "quarkus.redis.hosts")
    String redisUrl;

    static Map<String, Object> spec(String script) {
        return Map.of("command", List.of("sh", "-c", script, "job"), "minIdle", 1, "maxSize", 2);
    }

    void kill(String processor) throws Exception {
        long pid = LocalAgents.pidOf(redisUrl, processor).orElseThrow();
        new ProcessBuilder("kill", "-KILL", Long.toString(pid)).start().waitFor();
    }

    @Test
    void aKilledBusyAgentsJobFinishesOnAReplacementBeforeTheLeaseExpires() throws Exception {
        putPool("exit-busy", spec("sleep 1; echo done"));
        String id = submit(Map.of("type", "exit-busy", "maxAttempts", 3));
        await().atMost(Duration.ofSeconds(30)).until(() -> "RUNNING".equals(job(id).getString("state")));
        String first = job(id).getString("processor");
        kill(first);
        await().atMost(WELL_BEFORE_THE_LEASE).until(() -> "SUCCEEDED".equals(job(id).getString("state")));
        JsonPath j = job(id);
        assertEquals(2, j.getInt("attempts"), "the lost attempt is charged, as for any lost processor");
        assertNotEquals(first, j.getString("processor"));
        await().atMost(WELL_BEFORE_THE_LEASE)
                .until(() -> !pool("exit-busy").getList("processors.id").contains(first));
    }

    @Test
    void aKilledIdleAgentIsReplacedBeforeTheLeaseExpires() throws Exception {
        putPool("exit-idle", spec("true"));
        awaitIdle("exit-idle", 1);
        String first = pool("exit-idle").getString("processors[0].id");
        kill(first);
        await().atMost(WELL_BEFORE_THE_LEASE).until(() -> {
            JsonPath p = pool("exit-idle");
            return !p.getList("processors.id").contains(first) && p.getInt("status.idle") >= 1;
        });
    }
}
