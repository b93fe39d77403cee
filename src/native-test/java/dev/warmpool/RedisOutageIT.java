package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.runtime.local.LocalAgents;
import dev.warmpool.store.RedisServer;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Redis goes away mid-job: submits answer 503 with Retry-After (not 500, not a hang); the agent
 * keeps running its job and reports the result once Redis is back (AOF on): nothing is lost.
 */
class RedisOutageIT {
    RedisServer redis;
    ManagerProcess manager;
    String url;

    @AfterEach
    void cleanUp() throws InterruptedException {
        if (manager != null) {
            manager.kill();
        }
        if (url != null) {
            LocalAgents.killAll(url);
        }
        if (redis != null) {
            redis.stop();
        }
    }

    @Test
    void submitsAnswer503WhileRedisIsDownAndARunningJobReportsWhenItReturns() throws Exception {
        int port = RedisServer.freePort();
        Path dir = Files.createTempDirectory(Path.of("target"), "redis-outage");
        redis = RedisServer.persistent(port, dir);
        url = redis.url();
        manager = ManagerProcess.start(url, "redis-outage-it");
        manager.send(
                "PUT",
                "/pools/outage",
                "{\"command\": [\"sh\", \"-c\", \"sleep 3; echo survived\"], \"minIdle\": 1, \"maxSize\": 1}");
        String id = manager.send("POST", "/jobs", "{\"type\": \"outage\"}")
                .get("id")
                .asText();
        await().atMost(Duration.ofSeconds(60))
                .until(() ->
                        "RUNNING".equals(manager.get("/jobs/" + id).get("state").asText()));
        Path agentLog = Path.of(
                "target",
                "warmpool-test",
                "logs",
                "outage-" + manager.get("/jobs/" + id).get("processor").asText() + ".log");

        redis.stop(); // SIGTERM: Redis writes its AOF and exits
        long t0 = System.nanoTime();
        HttpResponse<String> refused = manager.call("POST", "/jobs", "{\"type\": \"outage\"}");
        assertEquals(503, refused.statusCode(), refused.body());
        assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "a submit during an outage answers at once");
        assertEquals(
                "application/problem+json",
                refused.headers().firstValue("Content-Type").orElse(""));
        assertTrue(refused.headers().firstValue("Retry-After").isPresent());
        assertEquals(503, manager.status("GET", "/jobs/" + id, null));

        // the job (3 s) ends while Redis is down; its agent holds the result until Redis returns
        await().atMost(Duration.ofSeconds(30))
                .until(() -> Files.readString(agentLog).contains("redis unreachable"));
        redis = RedisServer.persistent(port, dir);
        JsonNode job = manager.get("/jobs/" + id + "?wait=30");
        assertEquals("SUCCEEDED", job.get("state").asText());
        assertEquals("survived\n", job.at("/result/logTail").asText());
        try (Jedis j = new Jedis(URI.create(url))) {
            assertEquals("1", j.hget(KeySchema.job("outage", id), "completions"));
        }
        // and the pool serves again
        String next = manager.send("POST", "/jobs", "{\"type\": \"outage\"}")
                .get("id")
                .asText();
        assertEquals(
                "SUCCEEDED",
                manager.get("/jobs/" + next + "?wait=30").get("state").asText());
    }
}
