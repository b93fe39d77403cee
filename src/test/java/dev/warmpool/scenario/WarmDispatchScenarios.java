package dev.warmpool.scenario;

import static dev.warmpool.testing.Api.awaitEnd;
import static dev.warmpool.testing.Api.awaitIdle;
import static dev.warmpool.testing.Api.job;
import static dev.warmpool.testing.Api.millis;
import static dev.warmpool.testing.Api.pool;
import static dev.warmpool.testing.Api.putPool;
import static dev.warmpool.testing.Api.submit;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.testing.Api;
import dev.warmpool.testing.Tokens;
import io.restassured.path.json.JsonPath;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;

/**
 * One job end to end on real agents (child processes) and a real redis-server, over HTTP: run
 * in-process ({@link WarmDispatchTests}), against the packaged app, and against Redis Cluster.
 */
public abstract class WarmDispatchScenarios {
    static {
        Tokens.asAdminByDefault();
    }

    static Map<String, Object> spec(List<String> command, int minIdle, int maxSize, int idleTimeoutSeconds) {
        return Map.of(
                "command", command, "minIdle", minIdle, "maxSize", maxSize, "idleTimeoutSeconds", idleTimeoutSeconds);
    }

    static List<String> sh(String script) {
        return List.of("sh", "-c", script, "job");
    }

    @Test
    public void reusesIdleProcessorOfTheSameTypeAndTheSecondJobWaitsLessThanAColdStart() {
        putPool("reuse", spec(sh("echo ran $WARMPOOL_JOB_ID"), 1, 2, 300));
        awaitIdle("reuse", 1);
        JsonPath first = awaitEnd(submit(Map.of("type", "reuse")));
        JsonPath second = awaitEnd(submit(Map.of("type", "reuse")));
        assertEquals("SUCCEEDED", second.getString("state"));
        assertEquals(first.getString("processor"), second.getString("processor"));
        assertTrue(second.getString("result.logTail").contains("ran " + second.getString("id")));

        putPool("reuse-cold", spec(sh("true"), 0, 1, 300));
        JsonPath cold = awaitEnd(submit(Map.of("type", "reuse-cold")));
        long warmWait = millis(second, "startedAt") - millis(second, "submittedAt");
        long coldWait = millis(cold, "startedAt") - millis(cold, "submittedAt");
        assertTrue(warmWait < coldWait, "warm " + warmWait + " ms should be below cold " + coldWait + " ms");
    }

    @Test
    public void runsAJobOnlyOnProcessorsOfItsType() {
        putPool("sep-a", spec(sh("echo a"), 1, 2, 300));
        putPool("sep-b", spec(sh("echo b"), 1, 2, 300));
        awaitIdle("sep-a", 1);
        awaitIdle("sep-b", 1);
        assertTrue(Instant.parse(pool("sep-a").getString("processors[0].since"))
                .isBefore(Instant.now().plusSeconds(1)));
        assertEquals("IDLE", pool("sep-a").getString("processors[0].state"));
        for (int i = 0; i < 3; i++) {
            for (String type : List.of("sep-a", "sep-b")) {
                JsonPath j = awaitEnd(submit(Map.of("type", type)));
                List<String> own = pool(type).getList("processors.id");
                assertTrue(own.contains(j.getString("processor")), j.getString("processor") + " not in " + own);
                assertEquals(type.substring(4) + "\n", j.getString("result.logTail"));
            }
        }
    }

    @Test
    public void givesTheJobItsArgsConfigAndEnvAndReadsItsMetrics() {
        putPool(
                "io",
                Map.of(
                        "command",
                        sh("printf '%s|%s|%s|%s' \"$1\" \"$WARMPOOL_CONFIG\" \"$K\" \"$P\"; "
                                + "printf '{\"loss\": 0.5}' > \"$WARMPOOL_RESULT\""),
                        "env",
                        Map.of("P", "pool"),
                        "jobEnv",
                        List.of("K")));
        JsonPath j = awaitEnd(submit(
                Map.of("type", "io", "args", List.of("x y"), "config", Map.of("lr", 0.01), "env", Map.of("K", "v"))));
        assertEquals("SUCCEEDED", j.getString("state"));
        assertEquals("x y|{\"lr\":0.01}|v|pool", j.getString("result.logTail"));
        assertEquals(0.5f, j.getFloat("result.metrics.loss"));
        assertEquals(0, j.getInt("result.exitCode"));
    }

    @Test
    public void reportsTheExitCodeOfAFailedJob() {
        putPool("fails", spec(sh("echo oops; exit 3"), 1, 1, 300));
        JsonPath j = awaitEnd(submit(Map.of("type", "fails")));
        assertEquals("FAILED", j.getString("state"));
        assertTrue(j.getBoolean("ended"), "a failed job has ended");
        assertEquals(3, j.getInt("result.exitCode"));
        assertEquals("exit code 3", j.getString("error"));
        // the processor is idle again and takes the next job
        assertEquals("FAILED", awaitEnd(submit(Map.of("type", "fails"))).getString("state"));
    }

    @Test
    public void runsQueuedJobsByPriorityThenAge() {
        putPool("prio", spec(sh("sleep ${1:-0}"), 1, 1, 300));
        awaitIdle("prio", 1);
        String blocker = submit(Map.of("type", "prio", "args", List.of("1")));
        String low1 = submit(Map.of("type", "prio", "priority", 0));
        String high = submit(Map.of("type", "prio", "priority", 5));
        String low2 = submit(Map.of("type", "prio", "priority", 0));
        String mid = submit(Map.of("type", "prio", "priority", 1));
        List<String> order = new ArrayList<>(List.of(blocker, low1, high, low2, mid));
        List<JsonPath> ended = order.stream().map(Api::awaitEnd).toList();
        order.sort((a, b) -> Long.compare(
                millis(ended.get(List.of(blocker, low1, high, low2, mid).indexOf(a)), "startedAt"),
                millis(ended.get(List.of(blocker, low1, high, low2, mid).indexOf(b)), "startedAt")));
        assertEquals(List.of(blocker, high, mid, low1, low2), order);
        ended.forEach(j -> assertEquals(ended.get(0).getString("processor"), j.getString("processor")));
    }

    @Test
    public void cancelsAQueuedJob() {
        putPool("cq", spec(sh("sleep ${1:-0}"), 1, 1, 300));
        awaitIdle("cq", 1);
        String blocker = submit(Map.of("type", "cq", "args", List.of("2")));
        String queued = submit(Map.of("type", "cq"));
        assertEquals("QUEUED", job(queued).getString("state"));
        assertFalse(job(queued).getBoolean("ended"), "a queued job has not ended");
        JsonPath cancelled = given().delete("/jobs/" + queued)
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
        assertEquals("CANCELLED", cancelled.getString("state"));
        assertTrue(cancelled.getBoolean("ended"), "a cancelled job has ended");
        assertEquals("SUCCEEDED", awaitEnd(blocker).getString("state"));
        // the processor went idle instead of running the cancelled job
        awaitIdle("cq", 1);
        assertEquals("CANCELLED", job(queued).getString("state"));
        assertEquals(0, pool("cq").getInt("status.queued"));
    }

    @Test
    public void cancelsARunningJobAndKillsItsProcess() throws Exception {
        Path pidFile = Path.of("target", "cancel-running.pid").toAbsolutePath();
        Files.deleteIfExists(pidFile);
        putPool("cr", spec(List.of("sh", "-c", "echo $$ > " + pidFile + "; exec sleep 60"), 1, 1, 300));
        String id = submit(Map.of("type", "cr"));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> Files.exists(pidFile)
                        && Files.size(pidFile) > 0
                        && "RUNNING".equals(job(id).getString("state")));
        assertFalse(job(id).getBoolean("ended"), "a running job has not ended");
        long pid = Long.parseLong(Files.readString(pidFile).trim());
        given().delete("/jobs/" + id).then().statusCode(200);
        await().atMost(Duration.ofSeconds(15))
                .until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
        assertEquals("CANCELLED", job(id).getString("state"));
        awaitIdle("cr", 1);
        given().delete("/jobs/" + id).then().statusCode(409);
    }

    @Test
    public void endsAJobThatRunsPastItsTimeout() {
        putPool("slow", spec(sh("sleep 60"), 1, 1, 300));
        JsonPath j = awaitEnd(submit(Map.of("type", "slow", "timeoutSeconds", 1)));
        assertEquals("TIMED_OUT", j.getString("state"));
        awaitIdle("slow", 1);
    }

    @Test
    public void scalesUpOnABurstAndBackDownToMinIdleAfterTheIdleTimeout() {
        putPool("burst", spec(sh("sleep 2"), 1, 3, 1));
        awaitIdle("burst", 1);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ids.add(submit(Map.of("type", "burst")));
        }
        AtomicInteger most = new AtomicInteger();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            int size = pool("burst").getList("processors").size();
            most.accumulateAndGet(size, Math::max);
            return size == 3;
        });
        ids.forEach(id -> assertEquals("SUCCEEDED", awaitEnd(id).getString("state")));
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonPath p = pool("burst");
            most.accumulateAndGet(p.getList("processors").size(), Math::max);
            return p.getList("processors").size() == 1 && p.getInt("status.idle") == 1;
        });
        assertTrue(most.get() <= 3, "the pool grew to " + most.get() + " processors, above maxSize 3");
        long processors = ids.stream()
                .map(id -> job(id).getString("processor"))
                .distinct()
                .count();
        assertTrue(processors > 1, "a burst of 6 jobs of 2 s ran on " + processors + " processor(s)");
    }

    @Test
    public void deletingAPoolCancelsQueuedJobsAndRetiresItsProcessors() {
        putPool("gone", spec(sh("sleep ${1:-0}"), 1, 1, 300));
        awaitIdle("gone", 1);
        String running = submit(Map.of("type", "gone", "args", List.of("1")));
        String queued = submit(Map.of("type", "gone"));
        given().delete("/pools/gone").then().statusCode(202);
        assertEquals("CANCELLED", job(queued).getString("state"));
        assertTrue(job(queued).getString("error").contains("deleted"));
        given().contentType("application/json")
                .body(Map.of("type", "gone"))
                .post("/jobs")
                .then()
                .statusCode(409);
        assertEquals("SUCCEEDED", awaitEnd(running).getString("state"));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> given().get("/pools/gone").statusCode() == 404);
        assertFalse(given().get("/pools")
                .then()
                .extract()
                .jsonPath()
                .getList("type")
                .contains("gone"));
        assertNotEquals(null, job(running).getString("finishedAt"));
    }

    @Test
    public void takesABatchWholeBestFirstAndReplaysItForTheSameIdempotencyKey() {
        putPool(
                "batch",
                Map.of(
                        "command",
                        sh("sleep ${1:-0}"),
                        "minIdle",
                        1,
                        "maxSize",
                        1,
                        "idleTimeoutSeconds",
                        300,
                        "maxQueued",
                        4,
                        "jobEnv",
                        List.of("K")));
        awaitIdle("batch", 1);
        Map<String, Object> body = Map.of(
                "jobs",
                List.of(
                        Map.of("type", "batch", "args", List.of("1")),
                        Map.of("type", "batch"),
                        Map.of("type", "batch", "priority", 5),
                        Map.of("type", "batch", "env", Map.of("K", "v"))));
        JsonPath accepted = given().contentType("application/json")
                .header("Idempotency-Key", "batch-1")
                .body(body)
                .post("/jobs/batch")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath();
        List<String> ids = accepted.getList("jobs.id");
        assertEquals(4, ids.size());
        assertEquals(4, new HashSet<>(ids).size());
        // the one idle processor takes the best job of the batch (priority 5); the rest queue in order
        assertEquals(List.of("QUEUED", "QUEUED", "ASSIGNED", "QUEUED"), accepted.getList("jobs.state"));
        assertEquals(Map.of("K", "v"), accepted.getMap("jobs[3].env"));
        // the same batch again with the same key: the same jobs, nothing new stored
        assertEquals(
                ids,
                given().contentType("application/json")
                        .header("Idempotency-Key", "batch-1")
                        .body(body)
                        .post("/jobs/batch")
                        .then()
                        .statusCode(202)
                        .extract()
                        .jsonPath()
                        .getList("jobs.id"));
        List<JsonPath> ended = ids.stream().map(Api::awaitEnd).toList();
        ended.forEach(j -> assertEquals("SUCCEEDED", j.getString("state")));
        List<String> byStart = new ArrayList<>(ids);
        byStart.sort((a, b) -> Long.compare(
                millis(ended.get(ids.indexOf(a)), "startedAt"), millis(ended.get(ids.indexOf(b)), "startedAt")));
        assertEquals(List.of(ids.get(2), ids.get(0), ids.get(1), ids.get(3)), byStart);
        assertEquals(
                4,
                given().get("/jobs?type=batch&limit=100")
                        .then()
                        .extract()
                        .jsonPath()
                        .getList("id")
                        .size());

        // all or none: five jobs would not fit in a queue of four behind a busy processor
        String blocker = submit(Map.of("type", "batch", "args", List.of("2")));
        List<Map<String, Object>> five = Collections.nCopies(5, Map.of("type", "batch"));
        given().contentType("application/json")
                .body(Map.of("jobs", five))
                .post("/jobs/batch")
                .then()
                .statusCode(429)
                .body("type", Matchers.endsWith("/queue-full"))
                .body("detail", Matchers.containsString("batch of 5 jobs"));
        assertEquals(
                5,
                given().get("/jobs?type=batch&limit=100")
                        .then()
                        .extract()
                        .jsonPath()
                        .getList("id")
                        .size());
        assertEquals("SUCCEEDED", awaitEnd(blocker).getString("state"));
    }
}
