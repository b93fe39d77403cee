package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.store.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The learned keep-alive live, on the packaged app with a short time scale (a pass every second,
 * a lead of one second): a job type that comes every 6 s is learned from its first gaps; from
 * then on its processor is given back after each job, none idles through the gap, and one is
 * started again ahead of the next arrival, which finds it warm.
 */
class LearnedWarmthIT {
    static final long PERIOD_MS = 6_000;
    static final int LEARNING = 6; // arrivals: 5 gaps, the fewest the policy trusts
    static final int CHECKED = 3;

    static int processors(JsonNode pool) {
        JsonNode s = pool.path("status");
        return s.path("starting").asInt()
                + s.path("idle").asInt()
                + s.path("busy").asInt()
                + s.path("draining").asInt();
    }

    @Test
    void aPeriodicTypeIsPrewarmedBeforeEachArrivalAndNothingIdlesBetween() throws Exception {
        RedisServer redis = RedisServer.ephemeral();
        ManagerProcess m = null;
        try {
            m = ManagerProcess.start(
                    redis.url(),
                    "learned-warmth-it",
                    "-Dwarmpool.reconcile.interval=1s",
                    "-Dwarmpool.reconcile.warmth-lead=1s");
            ManagerProcess manager = m;
            manager.send(
                    "PUT",
                    "/pools/periodic",
                    "{\"command\": [\"sh\", \"-c\", \"sleep 0.2\"], \"minIdle\": 0, "
                            + "\"maxSize\": 2, \"idleTimeoutSeconds\": 60, \"warmth\": \"learned\"}");
            long t0 = System.currentTimeMillis();
            List<Boolean> emptyBetween = new ArrayList<>();
            List<Boolean> readyBefore = new ArrayList<>();
            long warmBefore = 0;
            for (int i = 0; i < LEARNING + CHECKED; i++) {
                long at = t0 + i * PERIOD_MS;
                if (i == LEARNING) {
                    warmBefore = manager.get("/pools/periodic")
                            .path("warmth")
                            .path("warmStarts")
                            .asLong();
                }
                if (i >= LEARNING) {
                    // between the last job's end and this arrival: no processor at some point, then one ready
                    boolean[] empty = {false};
                    await().atMost(Duration.ofMillis(PERIOD_MS))
                            .pollInterval(Duration.ofMillis(50))
                            .until(() -> (empty[0] |= processors(manager.get("/pools/periodic")) == 0)
                                            && manager.get("/pools/periodic")
                                                            .path("status")
                                                            .path("idle")
                                                            .asInt()
                                                    == 1
                                    || System.currentTimeMillis() >= at);
                    emptyBetween.add(empty[0]);
                    readyBefore.add(manager.get("/pools/periodic")
                                    .path("status")
                                    .path("idle")
                                    .asInt()
                            == 1);
                }
                await().atMost(Duration.ofMillis(PERIOD_MS + 1000))
                        .pollInterval(Duration.ofMillis(5))
                        .until(() -> System.currentTimeMillis() >= at); // the type's next arrival
                JsonNode job = manager.send("POST", "/jobs?wait=30", "{\"type\": \"periodic\"}");
                assertEquals("SUCCEEDED", job.path("state").asText(), job.toString());
            }
            JsonNode warmth = manager.get("/pools/periodic").path("warmth");
            assertEquals(List.of(true, true, true), emptyBetween, "given back in every checked gap: " + warmth);
            assertEquals(
                    List.of(true, true, true), readyBefore, "started again ahead of every checked arrival: " + warmth);
            assertTrue(warmth.path("levels").get(0).path("learned").asBoolean(), warmth.toString());
            assertTrue(warmth.path("levels").get(0).path("prewarmSeconds").asDouble() > 1, warmth.toString());
            assertEquals(
                    warmBefore + CHECKED,
                    warmth.path("warmStarts").asLong(),
                    "each checked arrival found its processor warm: " + warmth);
            String metrics = manager.call("GET", "/q/metrics", null).body();
            assertTrue(
                    metrics.contains("warmpool_warmth_window_seconds{edge=\"prewarm\",level=\"1\",pool=\"periodic\"}"),
                    metrics);
        } finally {
            ManagerProcess.tearDown(redis, Collections.singletonList(m));
        }
    }
}
