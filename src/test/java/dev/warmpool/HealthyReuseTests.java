package dev.warmpool;

import static dev.warmpool.testing.Api.awaitEnd;
import static dev.warmpool.testing.Api.awaitIdle;
import static dev.warmpool.testing.Api.pool;
import static dev.warmpool.testing.Api.putPool;
import static dev.warmpool.testing.Api.submit;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;

/**
 * Reuse that stays healthy: a pool's resetCommand runs between jobs (a failure retires the
 * processor instead of reusing it), maxAgeSeconds recycles an old processor, and the pool shows
 * what its warmth cost.
 */
@QuarkusTest
class HealthyReuseTests {
    static String onlyProcessor(String type) {
        List<String> ids = pool(type).getList("processors.id");
        assertEquals(1, ids.size(), ids.toString());
        return ids.get(0);
    }

    @Test
    void aResetCommandRunsBetweenJobsOnTheSameProcessor() throws Exception {
        Path marks = Files.createTempDirectory("wp-reset").resolve("resets");
        putPool(
                "reset-ok",
                Map.of(
                        "command",
                        List.of("true"),
                        "minIdle",
                        1,
                        "maxSize",
                        1,
                        "resetCommand",
                        List.of("sh", "-c", "echo reset >> " + marks)));
        awaitIdle("reset-ok", 1);
        String first = onlyProcessor("reset-ok");
        assertEquals("SUCCEEDED", awaitEnd(submit(Map.of("type", "reset-ok"))).getString("state"));
        await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(marks));
        assertEquals("SUCCEEDED", awaitEnd(submit(Map.of("type", "reset-ok"))).getString("state"));
        await().atMost(Duration.ofSeconds(20))
                .until(() -> Files.readAllLines(marks).size() == 2);
        assertEquals(first, onlyProcessor("reset-ok"), "reused after each reset");
    }

    @Test
    void aFailedResetRetiresTheProcessorAndTheNextJobRunsOnAFreshOne() {
        putPool(
                "reset-bad",
                Map.of(
                        "command",
                        List.of("true"),
                        "minIdle",
                        1,
                        "maxSize",
                        1,
                        "resetCommand",
                        List.of("sh", "-c", "exit 3")));
        awaitIdle("reset-bad", 1);
        String first = onlyProcessor("reset-bad");
        var job = awaitEnd(submit(Map.of("type", "reset-bad")));
        assertEquals("SUCCEEDED", job.getString("state"), "the job itself is fine");
        assertEquals(first, job.getString("processor"));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !pool("reset-bad").getList("processors.id").contains(first));
        var next = awaitEnd(submit(Map.of("type", "reset-bad")));
        assertEquals("SUCCEEDED", next.getString("state"));
        assertNotEquals(first, next.getString("processor"), "not the processor whose reset failed");
    }

    @Test
    void aProcessorOlderThanMaxAgeIsRecycledAfterItsJob() {
        putPool("aged", Map.of("command", List.of("true"), "minIdle", 1, "maxSize", 1, "maxAgeSeconds", 1));
        awaitIdle("aged", 1);
        String first = onlyProcessor("aged");
        Instant registered = Instant.parse(pool("aged").getString("processors[0].since"));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> Instant.now().isAfter(registered.plusMillis(1100))); // past its age
        var job = awaitEnd(submit(Map.of("type", "aged")));
        assertEquals(first, job.getString("processor"), "its job runs, then it goes");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !pool("aged").getList("processors.id").contains(first));
        awaitIdle("aged", 1);
    }

    @Test
    void aPoolShowsWarmAndColdStartsAndItsIdleTime() {
        long since = System.currentTimeMillis();
        putPool("costs", Map.of("command", List.of("true"), "minIdle", 0, "maxSize", 1, "warmth", "learned"));
        assertEquals("SUCCEEDED", awaitEnd(submit(Map.of("type", "costs"))).getString("state")); // no processor: cold
        assertEquals("SUCCEEDED", awaitEnd(submit(Map.of("type", "costs"))).getString("state")); // still warm: warm
        var w = pool("costs");
        assertEquals("learned", w.getString("warmth.policy"));
        assertEquals(1, w.getInt("warmth.coldStarts"));
        assertEquals(1, w.getInt("warmth.warmStarts"));
        double idle = w.getDouble("warmth.idleProcessorSeconds");
        double upAtMost = (System.currentTimeMillis() - since) / 1000.0;
        assertTrue(idle >= 0 && idle <= upAtMost, "one processor's idle seconds " + idle + ", up at most " + upAtMost);
        assertEquals(1, w.getInt("warmth.levels[0].level"));
        assertEquals(1, w.getInt("warmth.levels[0].samples"), "one gap at level 1 so far");
        assertEquals(false, w.getBoolean("warmth.levels[0].learned"), "too few to trust: the fixed keep-alive");
        // the series are those of the latest reconcile pass: wait for one after both jobs
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            String m = given().get("/q/metrics").then().extract().asString();
            return m.contains("warmpool_cold_starts_total{pool=\"costs\"} 1.0")
                    && m.contains("warmpool_warm_starts_total{pool=\"costs\"} 1.0");
        });
        String metrics =
                given().get("/q/metrics").then().statusCode(200).extract().asString();
        assertTrue(metrics.contains("warmpool_idle_processor_seconds_total{pool=\"costs\"}"), metrics);
    }

    @Test
    void aBadWarmthOrResetIsRefusedByName() {
        given().contentType("application/json")
                .body(Map.of("command", List.of("true"), "warmth", "clever"))
                .put("/pools/bad-warmth")
                .then()
                .statusCode(400)
                .body("field", Matchers.is("warmth"))
                .body("detail", Matchers.containsString("learned"));
        given().contentType("application/json")
                .body(Map.of("command", List.of("true"), "resetCommand", List.of()))
                .put("/pools/bad-reset")
                .then()
                .statusCode(400)
                .body("field", Matchers.is("resetCommand"));
        given().contentType("application/json")
                .body(Map.of("command", List.of("true"), "maxAgeSeconds", 0))
                .put("/pools/bad-age")
                .then()
                .statusCode(400)
                .body("field", Matchers.is("maxAgeSeconds"));
    }
}
