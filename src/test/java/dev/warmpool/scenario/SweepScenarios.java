package dev.warmpool.scenario;

import static dev.warmpool.testing.Api.awaitIdle;
import static dev.warmpool.testing.Api.putPool;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.testing.Api;
import dev.warmpool.testing.Tokens;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;

/**
 * Sweeps end to end: a Python trial on real agents and a real redis-server, over HTTP: grid and
 * random search, parallelism, failed trials, cancelling, the median stopping rule. The trials'
 * values, configs and workers are {@link SweepTrialScenarios}.
 */
public abstract class SweepScenarios extends SweepScenarioBase {
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
        given().delete("/sweeps/" + id).then().statusCode(409).body("type", Matchers.endsWith("/sweep-ended"));
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

    @Test
    public void aSweepsCostIsItsTrialsRunTimeAndTheColdStartsItsTrialsMet() {
        // a cold pool: no processor is idle when the trials are released, so each of the first ones is a cold start
        putPool("sw-cost-cold", trialPool(0, 2, Map.of()));
        Map<String, Object> space =
                Map.of("x", Map.of("grid", List.of(0, 1, 2)), "sleep", Map.of("grid", List.of(0.2)));
        String cold = submitSweep(Map.of("type", "sw-cost-cold", "space", space, "parallelism", 2));
        JsonPath c = awaitSweepEnd(cold);
        assertEquals("SUCCEEDED", c.getString("state"));
        assertEquals(3, c.getInt("cost.trials"));
        double busy = c.getDouble("cost.busySeconds");
        assertTrue(busy >= 3 * 0.2, "3 trials of 0.2 s each ran at least 0.6 s in all, saw " + busy);
        assertTrue(busy < 3 * 10, "3 trials of 0.2 s ran far less than 30 s in all, saw " + busy);
        assertTrue(c.getInt("cost.coldStarts") >= 2, "the first 2 trials found no idle processor: " + c.get("cost"));
        Map<String, Object> listed = given().get("/sweeps?type=sw-cost-cold")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getMap("find { it.id == '" + cold + "' }.cost");
        assertEquals(c.getMap("cost"), listed, "the listing shows the same cost");

        // a warm pool with a processor idle for every trial: no cold start
        putPool("sw-cost-warm", trialPool(3, 3, Map.of()));
        awaitIdle("sw-cost-warm", 3);
        String warm = submitSweep(Map.of("type", "sw-cost-warm", "space", space, "parallelism", 3));
        JsonPath w = awaitSweepEnd(warm);
        assertEquals("SUCCEEDED", w.getString("state"));
        assertEquals(0, w.getInt("cost.coldStarts"), "every trial found an idle processor: " + w.get("cost"));
        assertTrue(w.getDouble("cost.busySeconds") >= 3 * 0.2, "saw " + w.get("cost"));
        assertEquals(3, w.getInt("cost.trials"));
    }

    static Response addTrial(String sweep, Object body) {
        return given().contentType(ContentType.JSON).body(body).post("/sweeps/" + sweep + "/trials");
    }

    /** An external sweep: its driver adds each trial, they run under its parallelism, and it ends after its total. */
    @Test
    public void anExternalSweepRunsTheTrialsItsDriverAddsAndEndsAfterItsTotal() {
        putPool("sw-ext", trialPool(0, 2, Map.of()));
        String id = submitSweep(Map.of(
                "type",
                "sw-ext",
                "algorithm",
                "external",
                "trials",
                3,
                "parallelism",
                2,
                "objective",
                Map.of("metric", "loss")));
        JsonPath s = sweep(id);
        assertEquals("external", s.getString("spec.algorithm"));
        assertEquals(3, s.getInt("progress.total"));
        assertEquals(0, s.getList("trials").size(), "no trial until its driver adds one");
        for (int x = 0; x < 3; x++) {
            JsonPath t = addTrial(id, Map.of("config", Map.of("x", x)))
                    .then()
                    .statusCode(201)
                    .header("Location", "/jobs/" + id + "-" + x)
                    .extract()
                    .jsonPath();
            assertEquals(x, t.getInt("index"));
            assertEquals(x, t.getInt("config.x"));
        }
        addTrial(id, Map.of("config", Map.of("x", 9)))
                .then()
                .statusCode(409)
                .body("type", Matchers.endsWith("sweep-full"))
                .body("total", Matchers.equalTo(3));
        JsonPath done = awaitSweepEnd(id);
        assertEquals("SUCCEEDED", done.getString("state"));
        assertEquals(3, done.getInt("progress.succeeded"));
        assertEquals(id + "-2", done.getString("best.trial"), "x = 2 is nearest 3");
        assertEquals(3, done.getInt("cost.trials"));
        assertEquals(1.0, Api.job(id + "-2").getDouble("result.metrics.loss"), 1e-9, "a trial is a job like any");
        addTrial(id, Map.of("config", Map.of("x", 1)))
                .then()
                .statusCode(409)
                .body("type", Matchers.endsWith("sweep-ended"));
    }

    /** What an external sweep and its trials refuse, each with a sentence that names the field or the way out. */
    @Test
    public void whatAnExternalSweepRefuses() {
        putPool("sw-ext-bad", trialPool(0, 1, Map.of()));
        Map<String, Object> external = Map.of("type", "sw-ext-bad", "algorithm", "external");
        given().contentType(ContentType.JSON)
                .body(external)
                .post("/sweeps")
                .then()
                .statusCode(400)
                .body("field", Matchers.equalTo("trials"));
        Map<String, Object> seeded = new HashMap<>(external);
        seeded.put("trials", 2);
        seeded.put("seed", 7);
        given().contentType(ContentType.JSON)
                .body(seeded)
                .post("/sweeps")
                .then()
                .statusCode(400)
                .body("field", Matchers.equalTo("seed"));
        String id = submitSweep(Map.of("type", "sw-ext-bad", "algorithm", "external", "trials", 2));
        addTrial(id, Map.of()).then().statusCode(400).body("field", Matchers.equalTo("config"));
        addTrial(id, Map.of("config", List.of(1, 2))).then().statusCode(400);
        given().header("Authorization", Tokens.bearer(Tokens.BOB))
                .contentType(ContentType.JSON)
                .body(Map.of("config", Map.of("x", 1)))
                .post("/sweeps/" + id + "/trials")
                .then()
                .statusCode(403)
                .body("detail", Matchers.containsString("only they or an admin may add its trials"));
        addTrial(id + "0", Map.of("config", Map.of())).then().statusCode(404);
        String grid = submitSweep(Map.of("type", "sw-ext-bad", "space", Map.of("x", Map.of("grid", List.of(0)))));
        addTrial(grid, Map.of("config", Map.of("x", 1)))
                .then()
                .statusCode(409)
                .body("type", Matchers.endsWith("sweep-not-external"));
        assertEquals(0, sweep(id).getList("trials").size(), "nothing refused was added");
        given().delete("/sweeps/" + id).then().statusCode(200).body("state", Matchers.equalTo("CANCELLED"));
        assertNotNull(sweep(id).getString("finishedAt"), "a cancelled external sweep with no trial ends too");
    }

    /** A driver's retry adds a trial once (its key), and its study's log lives in the sweep's journal. */
    @Test
    public void anExternalSweepsDriverAddsATrialOnceUnderItsKeyAndKeepsItsJournalThere() {
        putPool("sw-ext-key", trialPool(0, 1, Map.of()));
        String id = submitSweep(Map.of("type", "sw-ext-key", "algorithm", "external", "trials", 2));
        Map<String, Object> first = Map.of("config", Map.of("x", 3), "key", "0");
        addTrial(id, first).then().statusCode(201).body("id", Matchers.equalTo(id + "-0"));
        addTrial(id, first).then().statusCode(200).body("id", Matchers.equalTo(id + "-0"));
        addTrial(id, Map.of("config", Map.of("x", 3), "key", ""))
                .then()
                .statusCode(400)
                .body("field", Matchers.equalTo("key"));
        assertEquals(1, sweep(id).getList("trials").size(), "added once");

        String journal = "/sweeps/" + id + "/journal";
        List<Map<String, Object>> entries = List.of(Map.of("op_code", 0, "n", 1), Map.of("op_code", 4, "n", 2));
        given().contentType(ContentType.JSON)
                .body(Map.of("entries", entries))
                .post(journal)
                .then()
                .statusCode(200)
                .body("size", Matchers.equalTo(2));
        given().contentType(ContentType.JSON)
                .body(Map.of("entries", List.of(1)))
                .post(journal)
                .then()
                .statusCode(400)
                .body("field", Matchers.equalTo("entries[0]"));
        JsonPath page = given().get(journal + "?from=1")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
        assertEquals(List.of(2), page.getList("entries.n"));
        assertEquals(2, page.getInt("next"));
        assertEquals(2, page.getInt("size"));
        given().header("Authorization", Tokens.bearer(Tokens.BOB))
                .contentType(ContentType.JSON)
                .body(Map.of("entries", entries))
                .post(journal)
                .then()
                .statusCode(403);
        String grid = submitSweep(Map.of("type", "sw-ext-key", "space", Map.of("x", Map.of("grid", List.of(0)))));
        given().contentType(ContentType.JSON)
                .body(Map.of("entries", entries))
                .post("/sweeps/" + grid + "/journal")
                .then()
                .statusCode(409)
                .body("type", Matchers.endsWith("sweep-not-external"));
        given().delete("/sweeps/" + id).then().statusCode(200);
    }
}
