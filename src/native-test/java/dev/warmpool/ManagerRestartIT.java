package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.pool.Ids;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.protocol.script.Script;
import dev.warmpool.runtime.local.LocalAgents;
import dev.warmpool.store.RedisServer;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The manager is stateless: kill -9 it, and its warm processors keep serving (a job submitted
 * straight to Redis runs); start it again, and it adopts them instead of starting new ones.
 */
class ManagerRestartIT {
    RedisServer redis;
    ManagerProcess manager;

    @BeforeEach
    void redis() {
        redis = RedisServer.ephemeral();
    }

    @AfterEach
    void cleanUp() throws InterruptedException {
        ManagerProcess.tearDown(redis, Collections.singletonList(manager));
    }

    @Test
    void warmProcessorsKeepServingWhileTheManagerIsDownAndAreAdoptedWhenItReturns() throws Exception {
        manager = ManagerProcess.start(redis.url(), "manager-restart-it");
        // maxSize 1: with room for two, a pass that sees the one processor busy with the test's job
        // rightly starts a second for minIdle; one that adopted nothing would replace it, and then
        // the job below would run on another processor
        manager.send(
                "PUT",
                "/pools/restart",
                "{\"command\": [\"sh\", \"-c\", \"echo served\"], \"minIdle\": 1, \"maxSize\": 1}");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> manager.get("/pools/restart").at("/status/idle").asInt() == 1);
        String processor = manager.get("/pools/restart").at("/processors/0/id").asText();

        manager.kill();
        assertEquals(1, LocalAgents.agentPids(redis.url()).size(), "the agent outlives its manager");
        String jobId = submitStraightToRedis("restart");
        try (Jedis j = new Jedis(URI.create(redis.url()))) {
            String key = KeySchema.job("restart", jobId);
            await().atMost(Duration.ofSeconds(30)).until(() -> "SUCCEEDED".equals(j.hget(key, "state")));
            assertEquals(processor, j.hget(key, "processor"));
        }

        manager = ManagerProcess.start(redis.url(), "manager-restart-it");
        // the series are read from Redis: the job that ran while no manager did is counted
        String metrics = ManagerProcess.HTTP
                .send(manager.request("GET", "/q/metrics", null, Map.of()), HttpResponse.BodyHandlers.ofString())
                .body();
        for (String series : List.of(
                "warmpool_jobs_submitted_total{pool=\"restart\"} 1.0",
                "warmpool_jobs_finished_total{pool=\"restart\",state=\"SUCCEEDED\"} 1.0",
                "warmpool_job_run_seconds_count{pool=\"restart\"} 1.0",
                "warmpool_pool_processors{pool=\"restart\",state=\"idle\"} 1.0")) {
            assertTrue(metrics.contains("\n" + series + "\n"), series + " in\n" + metrics);
        }
        JsonNode pool = manager.get("/pools/restart");
        assertEquals(1, pool.at("/processors").size());
        assertEquals(processor, pool.at("/processors/0/id").asText());
        JsonNode job = manager.send("POST", "/jobs", "{\"type\": \"restart\"}");
        JsonNode ended = manager.get("/jobs/" + job.get("id").asText() + "?wait=30");
        assertEquals("SUCCEEDED", ended.get("state").asText());
        assertEquals(processor, ended.get("processor").asText());
        assertEquals("served\n", ended.at("/result/logTail").asText());
        assertEquals(1, LocalAgents.agentPids(redis.url()).size(), "the one agent, adopted, still runs and no other");
        assertEquals(
                processor, manager.get("/pools/restart").at("/processors/0/id").asText());
    }

    @Test
    void aSweepGoesOnAtItsParallelismWhileTheManagerIsDown() throws Exception {
        manager = ManagerProcess.start(redis.url(), "manager-restart-it");
        manager.send(
                "PUT",
                "/pools/sweep-down",
                "{\"command\": [\"sh\", \"-c\", \"sleep 0.3; echo $WARMPOOL_CONFIG\"], "
                        + "\"minIdle\": 2, \"maxSize\": 2}");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> manager.get("/pools/sweep-down").at("/status/idle").asInt() == 2);
        String id = manager.send(
                        "POST",
                        "/sweeps",
                        "{\"type\": \"sweep-down\", \"parallelism\": 2, "
                                + "\"space\": {\"x\": {\"grid\": [0, 1, 2, 3, 4, 5, 6, 7]}}}")
                .get("id")
                .asText();
        manager.kill();

        // the agents release the trials as they end theirs: the sweep ends with no manager at all
        try (Jedis j = new Jedis(URI.create(redis.url()))) {
            String key = KeySchema.sweep("sweep-down", id);
            await().atMost(Duration.ofSeconds(60)).until(() -> "SUCCEEDED".equals(j.hget(key, "state")));
            assertEquals("8", j.hget(key, "succeeded"));
            List<long[]> spans = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                List<String> t =
                        j.hmget(KeySchema.job("sweep-down", Ids.trialId(id, i)), "startedAt", "finishedAt", "logTail");
                spans.add(new long[] {Long.parseLong(t.get(0)), Long.parseLong(t.get(1))});
                assertTrue(t.get(2).contains("\"x\":" + i), t.get(2));
            }
            int most = 0;
            for (long[] a : spans) {
                most = Math.max(most, (int)
                        spans.stream().filter(b -> b[0] <= a[0] && a[0] < b[1]).count());
            }
            assertEquals(2, most, "two trials at a time, never more, on the two warm processors");
        }
    }

    /** What POST /jobs does, without the manager: the submit script, run by hand. */
    private String submitStraightToRedis(String type) {
        String id = Ids.newJobId(type, System.currentTimeMillis());
        List<String> argv = new ArrayList<>(List.of(
                KeySchema.prefix(type),
                id,
                "0",
                "",
                "",
                "0",
                "id",
                id,
                "type",
                type,
                "args",
                "[]",
                "config",
                "{}",
                "env",
                "{}",
                "timeoutSeconds",
                "60",
                "maxAttempts",
                "1",
                "priority",
                "0"));
        try (Jedis j = new Jedis(URI.create(redis.url()))) {
            Object reply = j.eval(Script.SUBMIT.source(), List.of(KeySchema.pool(type)), argv);
            assertEquals("ASSIGNED", String.valueOf(((List<?>) reply).get(0)));
        }
        return id;
    }
}
