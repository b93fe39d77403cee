package dev.warmpool;

import static dev.warmpool.testing.Api.awaitEnd;
import static dev.warmpool.testing.Api.awaitIdle;
import static dev.warmpool.testing.Api.job;
import static dev.warmpool.testing.Api.pool;
import static dev.warmpool.testing.Api.putPool;
import static dev.warmpool.testing.Api.submit;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.protocol.KeySchema;
import dev.warmpool.protocol.script.Script;
import dev.warmpool.reconcile.Reconciler;
import dev.warmpool.runtime.local.LocalAgents;
import dev.warmpool.testing.Tokens;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** No job lost, none completed twice, no processor leaked: processors die, freeze, Redis forgets. */
@QuarkusTest
class ReliabilityTests {
    static {
        Tokens.asAdminByDefault();
    }

    @ConfigProperty(name = "quarkus.redis.hosts")
    String redisUrl;

    Jedis redis;

    @BeforeEach
    void connect() {
        redis = new Jedis(URI.create(redisUrl));
    }

    @AfterEach
    void close() {
        redis.close();
    }

    static Map<String, Object> spec(String script, int minIdle, int maxSize) {
        return Map.of("command", List.of("sh", "-c", script, "job"), "minIdle", minIdle, "maxSize", maxSize);
    }

    long agentPid(String processor) {
        return LocalAgents.pidOf(redisUrl, processor).orElseThrow();
    }

    void signal(String sig, long pid) throws Exception {
        new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).start().waitFor();
    }

    String completions(String jobId) {
        return redis.hget(KeySchema.job(Ids.typeOf(jobId), jobId), "completions");
    }

    String awaitRunning(String id) {
        await().atMost(Duration.ofSeconds(30)).until(() -> "RUNNING".equals(job(id).getString("state")));
        return job(id).getString("processor");
    }

    @jakarta.inject.Inject
    Reconciler reconciler;

    @Test
    void aPassThatRunsInTheMiddleOfAPoolsCreationDoesNotLoseThePool() {
        // a PUT adds the name to wp:pools, then runs the pool script: a pass in between sees a
        // name without a pool. It once dropped the name, and the new pool never got a processor.
        String type = "mid-create";
        redis.sadd(KeySchema.POOLS, type);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> reconciler.reconcileOnce().ran());
        redis.eval(
                Script.POOL_PUT.source(),
                List.of(KeySchema.pool(type)),
                List.of(
                        KeySchema.prefix(type),
                        "{\"command\":[\"true\"],\"minIdle\":1,\"maxSize\":1,\"idleTimeoutSeconds\":300,\"env\":{},\"maxQueued\":100}",
                        "1",
                        "1",
                        "300000",
                        "[\"true\"]",
                        "{}",
                        "100",
                        ""));
        assertTrue(redis.sismember(KeySchema.POOLS, type), "the name is still there");
        awaitIdle(type, 1);
    }

    @Test
    void requeuesJobWhenProcessorIsLost() throws Exception {
        putPool("lost", spec("sleep 2; echo done", 1, 2));
        String id = submit(Map.of("type", "lost", "maxAttempts", 3));
        String first = awaitRunning(id);
        signal("KILL", agentPid(first));
        JsonPath j = awaitEnd(id);
        assertEquals("SUCCEEDED", j.getString("state"));
        assertEquals(2, j.getInt("attempts"));
        assertNotEquals(first, j.getString("processor"));
        assertEquals("1", completions(id));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !pool("lost").getList("processors.id").contains(first));
    }

    @Test
    void failsJobWhenItsAttemptsRunOut() throws Exception {
        putPool("lost-once", spec("sleep 30", 1, 1));
        String id = submit(Map.of("type", "lost-once", "maxAttempts", 1));
        signal("KILL", agentPid(awaitRunning(id)));
        JsonPath j = awaitEnd(id);
        assertEquals("FAILED", j.getString("state"));
        assertTrue(j.getString("error").contains("no attempts left"), j.getString("error"));
        awaitIdle("lost-once", 1); // and the pool is whole again
    }

    @Test
    void refusesTheReportOfAFrozenProcessorWhoseJobMovedOn() throws Exception {
        putPool("frozen", spec("sleep 2", 1, 2));
        String id = submit(Map.of("type", "frozen", "maxAttempts", 3));
        String first = awaitRunning(id);
        long pid = agentPid(first);
        signal("STOP", pid);
        try {
            // its heartbeat goes stale (3 s here): the job is requeued and runs on another processor
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                JsonPath j = job(id);
                return j.getInt("attempts") == 2 && !first.equals(j.getString("processor"));
            });
        } finally {
            signal("CONT", pid);
        }
        JsonPath j = awaitEnd(id);
        assertEquals("SUCCEEDED", j.getString("state"));
        assertNotEquals(first, j.getString("processor"));
        // the thawed agent's late report was refused: the job ended once
        await().atMost(Duration.ofSeconds(20))
                .until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
        assertEquals("1", completions(id));
    }

    @Test
    void answersARepeatedIdempotencyKeyWithTheFirstJob() {
        putPool("idem", spec("true", 1, 1));
        Map<String, Object> body = Map.of("type", "idem", "config", Map.of("lr", 0.1));
        String first = given().contentType("application/json")
                .header("Idempotency-Key", "sweep-7-trial-3")
                .body(body)
                .post("/jobs")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getString("id");
        String again = given().contentType("application/json")
                .header("Idempotency-Key", "sweep-7-trial-3")
                .body(body)
                .post("/jobs")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getString("id");
        assertEquals(first, again);
        given().contentType("application/json")
                .header("Idempotency-Key", "sweep-7-trial-3")
                .body(Map.of("type", "idem", "config", Map.of("lr", 0.2)))
                .post("/jobs")
                .then()
                .statusCode(422)
                .body("type", equalTo("https://warmpool.dev/problems/idempotency-key-reused"))
                .body("job", equalTo(first));
        assertEquals(
                1,
                given().get("/jobs?type=idem")
                        .then()
                        .extract()
                        .jsonPath()
                        .getList("id")
                        .size());
        given().contentType("application/json")
                .header("Idempotency-Key", "bad key with spaces")
                .body(body)
                .post("/jobs")
                .then()
                .statusCode(400)
                .body("field", equalTo("Idempotency-Key"));
    }

    @Test
    void refusesJobsBeyondTheQueueLimitWithRetryAfter() {
        putPool("full", Map.of("command", List.of("sleep", "3"), "minIdle", 1, "maxSize", 1, "maxQueued", 2));
        awaitIdle("full", 1);
        submit(Map.of("type", "full"));
        submit(Map.of("type", "full"));
        submit(Map.of("type", "full"));
        int before = given().get("/jobs?type=full")
                .then()
                .extract()
                .jsonPath()
                .getList("id")
                .size();
        given().contentType("application/json")
                .body(Map.of("type", "full"))
                .post("/jobs")
                .then()
                .statusCode(429)
                .header("Retry-After", "5")
                .contentType("application/problem+json")
                .body("type", equalTo("https://warmpool.dev/problems/queue-full"));
        assertEquals(
                before,
                given().get("/jobs?type=full")
                        .then()
                        .extract()
                        .jsonPath()
                        .getList("id")
                        .size());
        given().delete("/pools/full").then().statusCode(202);
    }

    @Test
    void reloadsItsScriptsWhenRedisHasForgottenThem() {
        putPool("noscript", spec("echo ok", 1, 1));
        awaitIdle("noscript", 1);
        redis.scriptFlush();
        JsonPath j = awaitEnd(submit(Map.of("type", "noscript")));
        assertEquals("SUCCEEDED", j.getString("state"));
        assertEquals("ok\n", j.getString("result.logTail"));
    }

    @Test
    void letsAFinishedJobExpireAfterTheRetentionPeriod() {
        putPool("expiry", spec("true", 1, 1));
        String id = submit(Map.of("type", "expiry"));
        String key = KeySchema.job("expiry", id);
        awaitEnd(id);
        long ttl = redis.ttl(key);
        assertTrue(ttl > 7 * 86400 - 60 && ttl <= 7 * 86400, "ttl " + ttl);
        putPool("expiry-running", spec("sleep 5", 1, 1));
        String running = submit(Map.of("type", "expiry-running"));
        awaitRunning(running);
        assertEquals(-1, redis.ttl(KeySchema.job("expiry-running", running)));
        given().delete("/jobs/" + running).then().statusCode(200);
    }

    @Test
    void agentsRegisterAgainAfterRedisLosesItsDataAndNoneIsStartedTwice() {
        Map<String, Object> spec = spec("echo again", 1, 1);
        putPool("amnesia", spec);
        awaitIdle("amnesia", 1);
        String processor = pool("amnesia").getString("processors[0].id");
        redis.flushAll();
        putPool("amnesia", spec); // a user (or the config, for declared pools) puts the pool back
        await().atMost(Duration.ofSeconds(30)).until(() -> pool("amnesia").getInt("status.idle") == 1);
        assertEquals(List.of(processor), pool("amnesia").getList("processors.id"));
        JsonPath j = awaitEnd(submit(Map.of("type", "amnesia")));
        assertEquals(processor, j.getString("processor"));
        assertEquals("again\n", j.getString("result.logTail"));
    }

    /** The job type of a job id, as the server reads it. */
    static final class Ids {
        static String typeOf(String jobId) {
            return dev.warmpool.pool.Ids.typeOfJob(jobId);
        }
    }
}
