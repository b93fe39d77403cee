package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.runtime.local.LocalAgents;
import dev.warmpool.store.RedisServer;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** Two managers on one Redis: no job assigned twice, no pool above maxSize, work shared. */
class ManyManagersIT {
    RedisServer redis = RedisServer.ephemeral();
    List<ManagerProcess> managers = new ArrayList<>();

    @AfterEach
    void cleanUp() throws InterruptedException {
        ManagerProcess.tearDown(redis, managers);
    }

    @Test
    void twoManagersNeverAssignAJobTwiceNorGrowAPoolPastMaxSize() throws Exception {
        managers.add(ManagerProcess.start(redis.url(), "many-managers-a"));
        managers.add(ManagerProcess.start(redis.url(), "many-managers-b"));
        ManagerProcess a = managers.get(0), b = managers.get(1);
        a.send(
                "PUT",
                "/pools/shared",
                "{\"command\": [\"sleep\", \"0.3\"], \"minIdle\": 0, \"maxSize\": 3, \"idleTimeoutSeconds\": 60}");
        b.send(
                "PUT",
                "/pools/shared",
                "{\"command\": [\"sleep\", \"0.3\"], \"minIdle\": 0, \"maxSize\": 3, \"idleTimeoutSeconds\": 60}");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            ids.add((i % 2 == 0 ? a : b)
                    .send("POST", "/jobs", "{\"type\": \"shared\"}")
                    .get("id")
                    .asText());
        }
        AtomicInteger most = new AtomicInteger();
        await().atMost(Duration.ofSeconds(120)).until(() -> {
            // the pool's own agents: an agent of another run whose Redis had this port may still be ending
            most.accumulateAndGet(LocalAgents.agentPids(redis.url(), "shared").size(), Math::max);
            return a.get("/jobs?type=shared&state=SUCCEEDED&limit=1000").size() == ids.size();
        });
        assertTrue(most.get() <= 3, "the pool ran " + most.get() + " processors, above maxSize 3");
        try (Jedis j = new Jedis(URI.create(redis.url()))) {
            for (String id : ids) {
                assertEquals("1", j.hget(KeySchema.job("shared", id), "attempts"), id);
                assertEquals("1", j.hget(KeySchema.job("shared", id), "completions"), id);
            }
        }
        JsonNode pool = b.get("/pools/shared");
        assertTrue(pool.at("/processors").size() <= 3);
    }
}
