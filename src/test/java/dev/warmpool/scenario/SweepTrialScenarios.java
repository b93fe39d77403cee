package dev.warmpool.scenario;

import static dev.warmpool.testing.Api.millis;
import static dev.warmpool.testing.Api.putPool;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.testing.Api;
import io.restassured.path.json.JsonPath;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a sweep's trials report and receive, end to end on real agents: NaN, infinities and huge
 * numbers, an objective no trial reports, a config as a variable or a private file, a persistent
 * worker. In-process ({@link SweepTrialTests}) and against the packaged app ({@link SweepTrialIT}).
 */
public abstract class SweepTrialScenarios extends SweepScenarioBase {
    @Test
    public void trialsReturningNaNInfinityOrHugeNumbersEndTheSweepWithTheBestFiniteTrialAndEveryReadAnswers() {
        putPool("sw-nan", trialPool(1, 4, Map.of()));
        Map<String, Object> space = Map.of(
                "loss",
                Map.of("grid", List.of("nan", "inf", "-inf", "1e308", "0.5")),
                "steps",
                Map.of("grid", List.of(2)));
        String min = submitSweep(Map.of(
                "type",
                "sw-nan",
                "space",
                space,
                "parallelism",
                2,
                "objective",
                Map.of("metric", "loss", "goal", "minimize")));
        String max = submitSweep(Map.of(
                "type",
                "sw-nan",
                "space",
                space,
                "parallelism",
                2,
                "objective",
                Map.of("metric", "loss", "goal", "maximize")));
        JsonPath s = awaitSweepEnd(min);
        assertEquals("SUCCEEDED", s.getString("state"));
        assertEquals(5, s.getInt("progress.succeeded"));
        assertEquals(0.5, s.getDouble("best.value"), "-Infinity is never the least loss");
        assertEquals(s.getString("trials[4].id"), s.getString("best.trial"));
        // non-finite values come back as the strings Python's json spells them with; finite ones as numbers
        assertEquals(
                List.of("NaN", "Infinity", "-Infinity"),
                List.of(
                        s.getString("trials[0].metrics.loss"),
                        s.getString("trials[1].metrics.loss"),
                        s.getString("trials[2].metrics.loss")));
        assertEquals(1e308, s.getDouble("trials[3].metrics.loss"));
        assertEquals("NaN", s.getString("trials[0].progress.loss"));
        assertEquals("-Infinity", s.getString("trials[2].progress.loss"));
        JsonPath m = awaitSweepEnd(max);
        assertEquals("SUCCEEDED", m.getString("state"));
        assertEquals(1e308, m.getDouble("best.value"), "Infinity is never the greatest; 1e308 is a number");

        assertTrue(given().get("/sweeps?type=sw-nan")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .<String>getList("id")
                .containsAll(List.of(min, max)));
        List<JsonNode> events = eventData("/sweeps/" + min + "/events");
        assertEquals("SUCCEEDED", events.get(events.size() - 1).get("state").asText());
        given().delete("/sweeps/" + min).then().statusCode(409);
        String trial = s.getString("trials[0].id");
        assertEquals("NaN", Api.job(trial).getString("result.metrics.loss"));
        assertTrue(eventData("/jobs/" + trial + "/events").stream()
                .anyMatch(e -> "NaN".equals(e.path("loss").asText())));
    }

    @Test
    public void aSweepWhoseObjectiveNoTrialReportsSaysSoInItsWarningsAndOnItsEvents() {
        putPool("sw-typo", trialPool(1, 2, Map.of()));
        String id = submitSweep(Map.of(
                "type",
                "sw-typo",
                "parallelism",
                2,
                "space",
                Map.of("x", Map.of("grid", List.of(1, 2, 3, 4))),
                "objective",
                Map.of("metric", "los")));
        String events = given().get("/sweeps/" + id + "/events")
                .then()
                .statusCode(200)
                .extract()
                .asString();
        JsonPath s = sweep(id);
        assertEquals("SUCCEEDED", s.getString("state"));
        assertNull(s.get("best"));
        List<String> warnings = s.getList("warnings");
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("'los'") && warnings.get(0).contains("loss, pid, x"), warnings.get(0));
        assertTrue(events.contains("event:warning\ndata:\"None of the first 3 trials"), events);
        assertTrue(given().get("/sweeps?type=sw-typo")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getString("[0].warnings[0]")
                .contains("'los'"));

        String right = submitSweep(Map.of(
                "type",
                "sw-typo",
                "space",
                Map.of("x", Map.of("grid", List.of(1, 2))),
                "objective",
                Map.of("metric", "loss")));
        assertNull(awaitSweepEnd(right).get("warnings"), "no warning when the trials report the objective");
    }

    @Test
    public void aConfigUpToTheBodyLimitReachesTheJobInAPrivateFileRemovedAfterAndASmallOneInItsVariable() {
        String blob = "x".repeat(1_000_000); // with the rest of the body, just under the API's 1 MiB
        for (String worker : List.of("process", "persistent")) {
            String type = "sw-bigconfig-" + worker;
            putPool(type, trialPool(1, 1, Map.of("worker", worker)));
            JsonPath j = Api.awaitEnd(Api.submit(Map.of("type", type, "config", Map.of("blob", blob))));
            assertEquals("SUCCEEDED", j.getString("state"), worker + ": " + j.getString("error"));
            assertEquals(1_000_000, j.getInt("result.metrics.blobLength"));
            assertEquals(1_000_000, j.getInt("result.metrics.viaWorkerLib"));
            assertEquals("0o600", j.getString("result.metrics.mode"));
            assertEquals(false, j.getBoolean("result.metrics.inEnv"), "not in WARMPOOL_CONFIG as well");
            Path file = Path.of(j.getString("result.metrics.configFile"));
            await().atMost(Duration.ofSeconds(10)).until(() -> !Files.exists(file));
            JsonPath small = Api.awaitEnd(Api.submit(Map.of("type", type, "config", Map.of("blob", "small"))));
            assertEquals(true, small.getBoolean("result.metrics.inEnv"));
            assertNull(small.get("result.metrics.configFile"));
        }
    }

    @Test
    public void aJobThatReadsOnlyWarmpoolConfigIsToldInItsLogWhereALargeConfigIs() {
        putPool(
                "sw-bigconfig-sh",
                Map.of(
                        "command",
                        List.of(
                                "sh",
                                "-c",
                                "echo \"in env: ${#WARMPOOL_CONFIG} chars, in the file: $(wc -c < \"$WARMPOOL_CONFIG_FILE\")\""),
                        "minIdle",
                        0,
                        "maxSize",
                        1));
        JsonPath j = Api.awaitEnd(
                Api.submit(Map.of("type", "sw-bigconfig-sh", "config", Map.of("blob", "x".repeat(100_000)))));
        assertEquals("SUCCEEDED", j.getString("state"), j.getString("error"));
        assertEquals(
                List.of(
                        "warmpool: this job's config is 64 KiB or more, so it is in the file $WARMPOOL_CONFIG_FILE ("
                                + j.getString("result.logTail").replaceAll("(?s).*FILE \\(([^)]*)\\).*", "$1")
                                + "), not in $WARMPOOL_CONFIG",
                        "in env: 0 chars, in the file: 100011"),
                List.of(j.getString("result.logTail").split("\n")));
        JsonPath small = Api.awaitEnd(Api.submit(Map.of("type", "sw-bigconfig-sh", "config", Map.of("blob", "x"))));
        assertFalse(small.getString("result.logTail").contains("warmpool:"), small.getString("result.logTail"));
    }

    @Test
    public void aJobReportingNaNAndInfinityEndsAndItsReportsReadAsStrictJson() {
        putPool("sw-nanjob", trialPool(1, 1, Map.of()));
        JsonPath j =
                Api.awaitEnd(Api.submit(Map.of("type", "sw-nanjob", "config", Map.of("loss", "-inf", "steps", 3))));
        assertEquals("SUCCEEDED", j.getString("state"));
        assertEquals("-Infinity", j.getString("result.metrics.loss"));
        assertEquals("-Infinity", j.getString("progress.loss"));
        assertEquals(2, j.getInt("progress.step"));
        List<JsonNode> events = eventData("/jobs/" + j.getString("id") + "/events");
        assertEquals(
                3,
                events.stream()
                        .filter(e -> "-Infinity".equals(e.path("loss").asText()))
                        .count(),
                events.toString());
        String huge = Api.submit(Map.of("type", "sw-nanjob", "config", Map.of("loss", "1e308", "steps", 1)));
        assertEquals(1e308, Api.awaitEnd(huge).getDouble("result.metrics.loss"));
        // a persistent worker's answer and reports: the same form
        putPool("sw-nanworker", trialPool(1, 1, Map.of("worker", "persistent")));
        JsonPath w =
                Api.awaitEnd(Api.submit(Map.of("type", "sw-nanworker", "config", Map.of("loss", "nan", "steps", 2))));
        assertEquals("SUCCEEDED", w.getString("state"));
        assertEquals("NaN", w.getString("result.metrics.loss"));
        assertEquals("NaN", w.getString("progress.loss"));
    }

    @Test
    public void aPersistentWorkerRunsTheSecondTrialWithoutItsSlowImportAndIsRestartedWhenItDies() {
        Map<String, Object> env = Map.of("PYTHONPATH", CLIENT, "SETUP_SECONDS", "2");
        putPool("sw-persist", trialPool(1, 1, Map.of("worker", "persistent", "env", env)));
        JsonPath s = awaitSweepEnd(submitSweep(Map.of(
                "type", "sw-persist", "parallelism", 1, "space", Map.of("x", Map.of("grid", List.of(1, 2, 3))))));
        assertEquals(List.of("SUCCEEDED", "SUCCEEDED", "SUCCEEDED"), s.getList("trials.state"));
        long second = millis(s, "trials[1].finishedAt") - millis(s, "trials[1].startedAt");
        assertTrue(second < 1500, "the second trial took " + second + " ms: it paid the 2 s import again");
        assertEquals(1, new HashSet<>(s.getList("trials.metrics.pid")).size(), "one worker process ran every trial");

        // the same trial as a new process per job pays the import every time
        putPool("sw-process", trialPool(1, 1, Map.of("env", env)));
        JsonPath p = awaitSweepEnd(submitSweep(Map.of(
                "type", "sw-process", "space", Map.of("x", Map.of("grid", List.of(1, 2))))));
        long processSecond = millis(p, "trials[1].finishedAt") - millis(p, "trials[1].startedAt");
        assertTrue(processSecond >= 2000, "a new process per trial waits for its import: " + processSecond + " ms");

        // a worker that dies fails its job with its last output; the next job gets a new worker
        String died = Api.submit(Map.of("type", "sw-persist", "config", Map.of("die", true)));
        JsonPath d = Api.awaitEnd(died);
        assertEquals("FAILED", d.getString("state"));
        assertTrue(d.getString("error").contains("persistent worker exited (code 3)"), d.getString("error"));
        assertTrue(d.getString("result.logTail").contains("dying"), d.getString("result.logTail"));
        JsonPath after = Api.awaitEnd(Api.submit(Map.of("type", "sw-persist", "config", Map.of("x", 5))));
        assertEquals("SUCCEEDED", after.getString("state"));
        assertNotEquals(s.getInt("trials[0].metrics.pid"), after.getInt("result.metrics.pid"));
    }
}
