package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.runtime.local.LocalAgents;
import dev.warmpool.store.AgentUsers;
import dev.warmpool.store.RedisServer;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A Redis with a password (real redis-server, --requirepass): the manager and its agents work,
 * the password appears in no agent's command line or environment and in no job's output, and
 * agents connect as their pool's ACL user, which gets NOPERM for every other pool's key and for
 * any write of its own pool's spec.
 */
class RedisPasswordIT {
    static final String PASSWORD = "pw-" + Long.toHexString(System.nanoTime());
    RedisServer redis = RedisServer.ephemeral("--requirepass", PASSWORD);
    List<ManagerProcess> managers = new ArrayList<>();

    @AfterEach
    void cleanUp() throws InterruptedException {
        ManagerProcess.tearDown(redis, managers);
    }

    /** The pool's agents connect as its own ACL user, which reaches its pool's keys and nothing else. */
    void checkTheAgentUser(ManagerProcess m, String url, String seen) throws Exception {
        m.send("PUT", "/pools/other", "{\"command\": [\"true\"], \"minIdle\": 0}");
        try (Jedis admin = new Jedis(URI.create(url))) {
            String agentPassword = admin.hget(KeySchema.AGENTS, "pw");
            assertNotNull(agentPassword, "the manager made the pool's agent user");
            assertFalse(seen.contains(agentPassword), "the job saw its agent's password");
            assertTrue(admin.clientList().contains("user=" + AgentUsers.user("pw")), admin.clientList());
            try (Jedis agent = new Jedis(URI.create("redis://" + AgentUsers.user("pw") + ":"
                    + URLEncoder.encode(agentPassword, StandardCharsets.UTF_8) + "@127.0.0.1:"
                    + redis.port()))) {
                assertNotNull(agent.hget(KeySchema.pool("pw"), "spec"), "its own pool's keys");
                List<Runnable> forbidden = List.of(
                        () -> agent.hget(KeySchema.pool("other"), "spec"),
                        () -> agent.hset(KeySchema.pool("other"), "state", "DRAINING"),
                        // its own pool's spec it may read, never write: the next job would run that command
                        () -> agent.hset(KeySchema.pool("pw"), "command", "[\"sh\", \"-c\", \"id\"]"),
                        () -> agent.eval(
                                "return redis.call('HSET', KEYS[1], 'command', '[]')",
                                List.of(KeySchema.pool("pw")),
                                List.of()),
                        () -> agent.hget(KeySchema.idempotency("pw", "x"), "job"),
                        () -> agent.hget(KeySchema.AGENTS, "other"),
                        () -> agent.smembers(KeySchema.POOLS),
                        () -> agent.keys("*"),
                        () -> agent.flushAll(),
                        () -> agent.eval(
                                "return redis.call('HGET', KEYS[1], 'spec')",
                                List.of(KeySchema.pool("other")),
                                List.of()),
                        () -> agent.eval(
                                "return redis.call('DEL', ARGV[1])",
                                List.of(KeySchema.pool("pw")),
                                List.of(KeySchema.pool("other"))));
                for (Runnable call : forbidden) {
                    JedisDataException e = assertThrows(JedisDataException.class, call::run);
                    assertTrue(
                            e.getMessage().contains("NOPERM") || e.getMessage().contains("can't access"),
                            e.getMessage());
                }
                assertNotNull(admin.hget(KeySchema.pool("other"), "spec"), "the other pool is untouched");
            }
        }
    }

    @Test
    void runsJobsOnAPasswordedRedisWithoutShowingThePasswordToJobsOrPs() throws Exception {
        String url = "redis://:" + PASSWORD + "@127.0.0.1:" + redis.port();
        ManagerProcess m = ManagerProcess.start(url, "redis-password");
        managers.add(m);
        m.send(
                "PUT",
                "/pools/pw",
                "{\"command\": [\"sh\", \"-c\", \"env; echo ---agent---; cat /proc/$PPID/environ | tr '\\\\000' '\\\\n'\"],"
                        + " \"minIdle\": 1, \"maxSize\": 1}");
        String id = m.send("POST", "/jobs", "{\"type\": \"pw\"}").get("id").asText();
        await().atMost(Duration.ofSeconds(60))
                .until(() ->
                        m.get("/jobs/" + id + "?wait=5").get("state").asText().equals("SUCCEEDED"));
        JsonNode job = m.get("/jobs/" + id);
        String seen = job.at("/result/logTail").asText();
        assertTrue(seen.contains("WARMPOOL_JOB_ID=" + id), seen);
        assertFalse(seen.contains(PASSWORD), "the job saw the Redis password:\n" + seen);
        String own = seen.substring(0, seen.indexOf("---agent---"));
        assertFalse(
                own.contains("WARMPOOL_REDIS") || own.contains("redis://"),
                "the job's env has the agent's Redis variables:\n" + own);
        checkTheAgentUser(m, url, seen);
        List<Long> agents = LocalAgents.agentPids(url);
        assertEquals(1, agents.size(), "one agent, found by its command line without the password");
        for (long pid : agents) {
            for (String file : List.of("cmdline", "environ")) {
                String text = new String(
                        Files.readAllBytes(Path.of("/proc", Long.toString(pid), file)), StandardCharsets.UTF_8);
                assertFalse(text.contains(PASSWORD), "agent " + pid + "'s " + file + " holds the password");
            }
        }
    }
}
