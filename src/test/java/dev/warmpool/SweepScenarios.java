package dev.warmpool;

import static dev.warmpool.testing.Api.awaitIdle;
import static dev.warmpool.testing.Api.millis;
import static dev.warmpool.testing.Api.putPool;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.testing.Api;
import dev.warmpool.testing.Tokens;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Sweeps end to end: a Python trial (src/test/resources/sweeps/trial.py, through the shipped
 * clients/python/warmpool_worker.py) on real agents and a real redis-server, over HTTP.
 */
public abstract class SweepScenarios {
    static {
        Tokens.asAdminByDefault();
    }

    static final String TRIAL =
            Path.of("src/test/resources/sweeps/trial.py").toAbsolutePath().toString();
    static final String CLIENT = Path.of("clients/python").toAbsolutePath().toString();

    static Map<String, Object> trialPool(int minIdle, int maxSize, Map<String, Object> extra) {
        Map<String, Object> pool = new HashMap<>(Map.of(
                "command",
                List.of("python3", TRIAL),
                "minIdle",
                minIdle,
                "maxSize",
                maxSize,
                "idleTimeoutSeconds",
                300,
                "env",
                Map.of("PYTHONPATH", CLIENT)));
        pool.putAll(extra);
        return pool;
    }

    static String submitSweep(Map<String, Object> body) {
        return given().contentType(ContentType.JSON)
                .body(body)
                .post("/sweeps")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getString("id");
    }

    static JsonPath sweep(String id) {
        return given().get("/sweeps/" + id).then().statusCode(200).extract().jsonPath();
    }

    static JsonPath awaitSweepEnd(String id) {
        await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> !"RUNNING".equals(sweep(id).getString("state")));
        return sweep(id);
    }

    /** The most trials that ran at one instant, from their recorded start and end times. */
    static int mostAtOnce(JsonPath s) {
        List<long[]> spans = new ArrayList<>();
        for (Map<String, Object> t : s.<Map<String, Object>>getList("trials")) {
            if (t.get("startedAt") != null) {
                spans.add(new long[] {
                    java.time.Instant.parse((String) t.get("startedAt")).toEpochMilli(),
                    java.time.Instant.parse((String) t.get("finishedAt")).toEpochMilli()
                });
            }
        }
        int most = 0;
        for (long[] a : spans) {
            int at = 0;
            for (long[] b : spans) {
                if (b[0] <= a[0] && a[0] < b[1]) {
                    at++;
                }
            }
            most = Math.max(most, at);
        }
        return most;
    }

    @Test
    public void gridSweepRunsEveryConfigurationAtMostParallelismAtOnceAndKeepsTheBestForEitherGoal() {
        putPool("sw-grid", trialPool(0, 4, Map.of()));
        Map<String, Object> space =
                Map.of("x", Map.of("grid", List.of(0, 1, 2, 3, 4, 5, 6, 7)), "sleep", Map.of("grid", List.of(0.4)));
        String min = submitSweep(Map.of(
                "type",
                "sw-grid",
                "space",
                space,
                "parallelism",
                2,
                "objective",
                Map.of("metric", "loss", "goal", "minimize")));
        String max = submitSweep(Map.of(
                "type",
                "sw-grid",
                "space",
                space,
                "parallelism",
                1,
                "objective",
                Map.of("metric", "x", "goal", "maximize")));
        JsonPath s = awaitSweepEnd(min);
        assertEquals("SUCCEEDED", s.getString("state"));
        assertEquals(8, s.getInt("progress.total"));
        assertEquals(8, s.getInt("progress.succeeded"));
        List<Integer> xs = s.getList("trials.config.x");
        assertEquals(Set.of(0, 1, 2, 3, 4, 5, 6, 7), new HashSet<>(xs));
        // every trial's process got its own config (it echoes x back in its metrics)
        assertEquals(xs, s.getList("trials.metrics.x"));
        assertTrue(mostAtOnce(s) <= 2, "at most 2 trials at once, saw " + mostAtOnce(s));
        assertEquals(3, s.getInt("best.config.x"));
        assertEquals(0.0, s.getDouble("best.value"));
        assertEquals(s.getString("trials[3].id"), s.getString("best.trial"));

        JsonPath m = awaitSweepEnd(max);
        assertEquals(1, mostAtOnce(m), "parallelism 1: one trial at a time");
        assertEquals(7, m.getInt("best.config.x"));
        assertEquals(7.0, m.getDouble("best.value"));

        // the trials are jobs too, listed in trial order
        List<Map<String, Object>> jobs = given().get("/jobs?sweep=" + min)
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getList("$");
        assertEquals(8, jobs.size());
        assertEquals(min + "-0", jobs.get(0).get("id"));
        assertEquals(min, jobs.get(0).get("sweep"));
        assertEquals(
                List.of(min, max),
                given().get("/sweeps?type=sw-grid").then().statusCode(200).extract().jsonPath().getList("id").stream()
                        .filter(id -> id.equals(min) || id.equals(max))
                        .sorted()
                        .toList());
    }

    @Test
    public void randomSweepWithTheSameSeedDrawsTheSameConfigurations() {
        putPool("sw-rand", trialPool(1, 2, Map.of()));
        Map<String, Object> body = Map.of(
                "type",
                "sw-rand",
                "algorithm",
                "random",
                "trials",
                5,
                "seed",
                42,
                "space",
                Map.of("x", Map.of("uniform", List.of(0, 6)), "layers", Map.of("int", List.of(1, 8))),
                "objective",
                Map.of("metric", "loss"));
        JsonPath a = awaitSweepEnd(submitSweep(body));
        JsonPath b = awaitSweepEnd(submitSweep(body));
        assertEquals(5, a.getList("trials").size());
        assertEquals(a.getList("trials.config"), b.getList("trials.config"));
        assertEquals(5, new HashSet<>(a.getList("trials.config.x")).size(), "five different draws");
        assertEquals(42L, a.getLong("spec.seed"));
        assertEquals("minimize", a.getString("spec.objective.goal"));
        double best = a.<Float>getList("trials.metrics.loss").stream()
                .mapToDouble(Float::doubleValue)
                .min()
                .orElseThrow();
        assertEquals(best, a.getDouble("best.value"), 1e-6);
    }

    @Test
    public void failedTrialsFailTheSweepOnlyPastMaxFailedTrials() {
        putPool("sw-fail", trialPool(1, 2, Map.of()));
        JsonPath tolerated = awaitSweepEnd(submitSweep(Map.of(
                "type",
                "sw-fail",
                "parallelism",
                1,
                "maxFailedTrials",
                1,
                "space",
                Map.of("fail", Map.of("grid", List.of(false, true, false))),
                "objective",
                Map.of("metric", "loss"))));
        assertEquals("SUCCEEDED", tolerated.getString("state"));
        assertEquals(1, tolerated.getInt("progress.failed"));
        assertEquals("FAILED", tolerated.getString("trials[1].state"));
        assertTrue(
                tolerated.getString("trials[1].error").contains("exit code 1"), tolerated.getString("trials[1].error"));

        JsonPath failed = awaitSweepEnd(submitSweep(Map.of(
                "type",
                "sw-fail",
                "parallelism",
                1,
                "maxFailedTrials",
                1,
                "space",
                Map.of("fail", Map.of("grid", List.of(true, true, false, false, false))))));
        assertEquals("FAILED", failed.getString("state"));
        assertTrue(failed.getString("error").contains("more than maxFailedTrials (1)"), failed.getString("error"));
        assertEquals(
                List.of("FAILED", "FAILED", "CANCELLED", "CANCELLED", "CANCELLED"), failed.getList("trials.state"));
        assertEquals(5, failed.getInt("progress.done"));
        assertEquals(0, failed.getInt("progress.active"));
    }

    @Test
    public void cancellingASweepEndsItsRunningAndPendingTrials() {
        putPool("sw-cancel", trialPool(2, 2, Map.of()));
        awaitIdle("sw-cancel", 2);
        String id = submitSweep(Map.of(
                "type",
                "sw-cancel",
                "parallelism",
                2,
                "space",
                Map.of("sleep", Map.of("grid", List.of(60, 61, 62, 63, 64)))));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> sweep(id).getList("trials.state").stream()
                                .filter("RUNNING"::equals)
                                .count()
                        == 2);
        JsonPath s =
                given().delete("/sweeps/" + id).then().statusCode(200).extract().jsonPath();
        assertEquals("CANCELLED", s.getString("state"));
        assertEquals(
                List.of("CANCELLED", "CANCELLED", "CANCELLED", "CANCELLED", "CANCELLED"), s.getList("trials.state"));
        assertNotNull(s.getString("finishedAt"));
        // the running trials' processes were killed: both processors are idle again long before 60 s
        await().atMost(Duration.ofSeconds(20)).until(() -> Api.pool("sw-cancel").getInt("status.idle") == 2);
        given().delete("/sweeps/" + id)
                .then()
                .statusCode(409)
                .body("type", org.hamcrest.Matchers.endsWith("/sweep-ended"));
    }

    @Test
    public void theMedianRuleStopsATrialWorseThanTheCompletedOnesAtTheSameStep() {
        putPool("sw-median", trialPool(1, 1, Map.of()));
        // loss at step s is x * (s + 1): at step 2, x = 9 gives 27 against a median of 4.5
        JsonPath s = awaitSweepEnd(submitSweep(Map.of(
                "type",
                "sw-median",
                "parallelism",
                1,
                "space",
                Map.of(
                        "x",
                        Map.of("grid", List.of(1, 2, 1.5, 9)),
                        "steps",
                        Map.of("grid", List.of(20)),
                        "stepSleep",
                        Map.of("grid", List.of(0.05))),
                "objective",
                Map.of("metric", "loss", "goal", "minimize"),
                "earlyStopping",
                Map.of("rule", "median", "minSteps", 2, "minTrials", 3))));
        assertEquals(List.of("SUCCEEDED", "SUCCEEDED", "SUCCEEDED", "EARLY_STOPPED"), s.getList("trials.state"));
        assertEquals(1, s.getInt("progress.earlyStopped"));
        assertEquals("SUCCEEDED", s.getString("state"));
        String why = s.getString("trials[3].error");
        assertTrue(why.contains("at step 2") && why.contains("worse than 4.5, the median of 3 completed trials"), why);
        assertEquals(2, s.getInt("trials[3].progress.step"), "stopped at its first report past minSteps");
        assertEquals(2.0, s.getDouble("best.config.x"), "(x - 3)^2 is least at x = 2 of 1, 2, 1.5");
    }

    /** The data of every event but log lines of an ended event stream, parsed as strict JSON (no NaN tokens). */
    static List<com.fasterxml.jackson.databind.JsonNode> eventData(String path) {
        String body = given().get(path).then().statusCode(200).extract().asString();
        List<com.fasterxml.jackson.databind.JsonNode> out = new ArrayList<>();
        String event = "";
        for (String line : body.split("\n")) {
            if (line.startsWith("event:")) {
                event = line.substring(6).trim();
            } else if (line.startsWith("data:") && !"log".equals(event)) {
                try {
                    out.add(new com.fasterxml.jackson.databind.ObjectMapper()
                            .readTree(line.substring(5).trim()));
                } catch (java.io.IOException e) {
                    throw new AssertionError("not strict JSON in " + path + ": " + line, e);
                }
            }
        }
        return out;
    }

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
        List<com.fasterxml.jackson.databind.JsonNode> events = eventData("/sweeps/" + min + "/events");
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
            await().atMost(Duration.ofSeconds(10)).until(() -> !java.nio.file.Files.exists(file));
            JsonPath small = Api.awaitEnd(Api.submit(Map.of("type", type, "config", Map.of("blob", "small"))));
            assertEquals(true, small.getBoolean("result.metrics.inEnv"));
            assertNull(small.get("result.metrics.configFile"));
        }
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
        List<com.fasterxml.jackson.databind.JsonNode> events = eventData("/jobs/" + j.getString("id") + "/events");
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
