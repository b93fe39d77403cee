package dev.warmpool.scenario;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.protocol.KeySchema;
import dev.warmpool.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** The sweep scenarios in-process, and what only in-process can set up: a sweep an older build broke. */
@QuarkusTest
class SweepTests extends SweepScenarios {
    @ConfigProperty(name = "quarkus.redis.hosts")
    String redisUrl;

    @Test
    void aSweepAnOlderBuildLeftHoldingNaNAndUnreadableValuesReadsListsAndCancelsCleanly() {
        Api.putPool("sw-old", trialPool(0, 1, Map.of()));
        String id = submitSweep(Map.of(
                "type",
                "sw-old",
                "parallelism",
                1,
                "objective",
                Map.of("metric", "loss"),
                "space",
                Map.of("sleep", Map.of("grid", List.of(60, 61, 62)))));
        String t1 = id + "-1";
        String t2 = id + "-2";
        try (Jedis redis = new Jedis(URI.create(redisUrl))) {
            String skey = KeySchema.sweep("sw-old", id);
            // an older build's finish stored these, then failed before it counted the trial's end
            redis.lrem(KeySchema.sweepPending("sw-old", id), 0, t1);
            redis.hset(
                    KeySchema.job("sw-old", t1),
                    Map.of(
                            "state",
                            "SUCCEEDED",
                            "exitCode",
                            "0",
                            "metrics",
                            "{\"loss\":NaN,\"big\":1e999}",
                            "progress",
                            "{\"step\":1,\"loss\":-Infinity}"));
            redis.hset(skey, Map.of("bestTrial", t1, "bestValue", "nan", "succeeded", "1"));
            redis.hset(KeySchema.job("sw-old", t2), "metrics", "{\"loss\": 0.1"); // not JSON at all
        }
        JsonPath s = sweep(id);
        assertNull(s.get("best"), "a 'nan' best is no best");
        assertEquals("NaN", s.getString("trials[1].metrics.loss"));
        assertEquals("Infinity", s.getString("trials[1].metrics.big"));
        assertEquals("-Infinity", s.getString("trials[1].progress.loss"));
        assertEquals("{\"loss\": 0.1", s.getString("trials[2].metrics"), "unreadable text is shown as it is");
        given().get("/sweeps?type=sw-old").then().statusCode(200);
        assertEquals("NaN", Api.job(t1).getString("result.metrics.loss"));
        JsonPath cancelled =
                given().delete("/sweeps/" + id).then().statusCode(200).extract().jsonPath();
        assertEquals("CANCELLED", cancelled.getString("state"));
        assertNotNull(cancelled.getString("finishedAt"), "finished although one trial's end was never counted");
    }

    @Test
    void thePoolsSweepTrialBusySecondsCountEveryTrialsRunTime() {
        Api.putPool("sw-metered", trialPool(0, 2, Map.of()));
        Map<String, Object> space = Map.of("x", Map.of("grid", List.of(0, 1)), "sleep", Map.of("grid", List.of(0.2)));
        double busy = awaitSweepEnd(submitSweep(Map.of("type", "sw-metered", "space", space, "parallelism", 2)))
                .getDouble("cost.busySeconds");
        assertTrue(busy >= 2 * 0.2, "saw " + busy);
        String series = "warmpool_sweep_trial_busy_seconds_total{pool=\"sw-metered\"}";
        // each scrape reads Redis (scrapes within a second share a read)
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            String m =
                    given().get("/q/metrics").then().statusCode(200).extract().asString();
            Matcher v = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$")
                    .matcher(m);
            assertTrue(v.find(), series + " in\n" + m);
            assertEquals(busy, Double.parseDouble(v.group(1)), 0.002, "the pool's counter holds its one sweep's time");
        });
    }
}
