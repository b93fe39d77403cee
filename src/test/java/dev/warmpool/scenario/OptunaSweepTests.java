package dev.warmpool.scenario;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.pool.Ids;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.protocol.Relay;
import dev.warmpool.testing.Api;
import dev.warmpool.testing.Tokens;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Sweeps the manager runs itself ({@code "algorithm": "optuna"}): a real Optuna study as a driver job
 * of the manager's driver pool, reaching the API through its agent's relay with its sweep-scoped
 * token; and what that token may and may not do.
 */
@QuarkusTest
class OptunaSweepTests extends SweepScenarioBase {
    @ConfigProperty(name = "quarkus.redis.hosts")
    String redisUrl;

    static Map<String, Object> study(String type, int trials, Map<String, Object> extra) {
        Map<String, Object> body = new HashMap<>(Map.of(
                "type",
                type,
                "algorithm",
                "optuna",
                "trials",
                trials,
                "parallelism",
                2,
                "objective",
                Map.of("metric", "loss", "goal", "minimize"),
                "space",
                Map.of("x", Map.of("uniform", List.of(0, 6)))));
        body.putAll(extra);
        return body;
    }

    /** The study runs on the server, started by a CloudEvent: its driver adds the trials, tells Optuna their ends, and ends. */
    @Test
    void anOptunaStudyRunsOnTheServerWithNoClientConnected() {
        Api.putPool("sw-optuna", trialPool(0, 2, Map.of()));
        // started by a CloudEvent (a Knative trigger), and followed by nobody: the server runs the whole study
        Map<String, Object> body = study(
                "sw-optuna",
                6,
                Map.of(
                        "seed",
                        3,
                        "sampler",
                        Map.of("name", "RandomSampler"),
                        "pruner",
                        Map.of("name", "MedianPruner", "args", Map.of("n_startup_trials", 2))));
        given().contentType("application/cloudevents+json")
                .body(Map.of(
                        "specversion",
                        "1.0",
                        "id",
                        "optuna-1",
                        "source",
                        "/tests",
                        "type",
                        "dev.warmpool.sweep.submit",
                        "datacontenttype",
                        "application/json",
                        "data",
                        body))
                .post("/")
                .then()
                .statusCode(lessThan(300));
        String id = given().get("/sweeps?type=sw-optuna")
                .then()
                .statusCode(200)
                .extract()
                .path("[0].id");
        JsonPath s = sweep(id);
        assertEquals("optuna", s.getString("spec.algorithm"));
        assertEquals("RandomSampler", s.getString("spec.sampler.name"));
        assertNotNull(s.getString("driver.job"), "its driver job");
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> "SUCCEEDED".equals(sweep(id).getString("driver.state")));
        JsonPath done = sweep(id);
        assertEquals("SUCCEEDED", done.getString("state"), done.prettify());
        assertEquals(6, done.getInt("progress.done"));
        assertEquals(6, done.getList("trials").size(), "each trial added once");
        double best = Double.MAX_VALUE;
        for (Map<String, Object> t : done.<Map<String, Object>>getList("trials")) {
            double x = ((Number) ((Map<?, ?>) t.get("config")).get("x")).doubleValue();
            assertTrue(x >= 0 && x <= 6, "a draw from the space: " + t);
            best = Math.min(best, (x - 3) * (x - 3));
        }
        assertEquals(best, done.getDouble("best.value"), 1e-6 * Math.max(1, best), "the best trial's loss");
        JsonPath journal = given().get("/sweeps/" + id + "/journal")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
        assertTrue(journal.getInt("size") > 6, "the study is in the sweep's journal: " + journal.getInt("size"));
    }

    /** A driver's token reaches its sweep and that sweep's trials, nothing else, and goes with the sweep. */
    @Test
    void aDriversTokenReachesItsOwnSweepAndNothingElse() {
        Api.putPool("sw-scoped", trialPool(0, 1, Map.of()));
        // a driver pool that only waits: its job holds the token, the test plays the driver
        Api.putPool("sw-waiting-driver", Map.of("command", List.of("sleep", "300"), "minIdle", 0, "maxSize", 1));
        String id = submitSweep(study("sw-scoped", 2, Map.of("driver", "sw-waiting-driver")));
        String other = submitSweep(Map.of("type", "sw-scoped", "space", Map.of("x", Map.of("grid", List.of(9)))));
        String driverJob = sweep(id).getString("driver.job");
        String token;
        try (Jedis redis = new Jedis(URI.create(redisUrl))) {
            token = redis.hget(KeySchema.job("sw-waiting-driver", driverJob), "apiToken");
            assertEquals(id, redis.hget(KeySchema.job("sw-waiting-driver", driverJob), "driverOf"));
        }
        assertNotNull(token);
        given().get("/jobs/" + driverJob).then().statusCode(200).body(not(containsString(token)));
        asDriver(token).get("/sweeps/" + id).then().statusCode(200);
        String trial = asDriver(token)
                .contentType(ContentType.JSON)
                .body(Map.of("config", Map.of("x", 3), "key", "0"))
                .post("/sweeps/" + id + "/trials")
                .then()
                .statusCode(201)
                .extract()
                .path("id");
        asDriver(token).get("/jobs/" + trial).then().statusCode(200);
        asDriver(token)
                .contentType(ContentType.JSON)
                .body(Map.of("entries", List.of(Map.of("op_code", 0))))
                .post("/sweeps/" + id + "/journal")
                .then()
                .statusCode(200);
        asDriver(token).get("/sweeps/" + id + "/journal").then().statusCode(200);
        asDriver(token).get("/sweeps/" + other).then().statusCode(403);
        asDriver(token).get("/jobs/" + other + "-0").then().statusCode(403);
        asDriver(token).get("/jobs/" + driverJob).then().statusCode(403);
        asDriver(token).get("/sweeps").then().statusCode(403);
        asDriver(token).get("/pools").then().statusCode(403);
        asDriver(token)
                .contentType(ContentType.JSON)
                .body(Map.of("command", List.of("true"), "minIdle", 0, "maxSize", 1))
                .put("/pools/sw-scoped")
                .then()
                .statusCode(403);
        asDriver(token)
                .contentType(ContentType.JSON)
                .body(Map.of("type", "sw-scoped"))
                .post("/jobs")
                .then()
                .statusCode(403);
        asDriver(token).delete("/sweeps/" + id).then().statusCode(403);
        asDriver(token).get("/q/metrics").then().statusCode(403);
        asDriver(token.substring(0, token.length() - 1) + "x")
                .get("/sweeps/" + id)
                .then()
                .statusCode(401);

        // cancelling the sweep ends its driver; the token is good a minute more for its last words, then not
        given().delete("/sweeps/" + id).then().statusCode(200).body("state", equalTo("CANCELLED"));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> "CANCELLED".equals(Api.job(driverJob).getString("state")));
        try (Jedis redis = new Jedis(URI.create(redisUrl))) {
            redis.hset(
                    KeySchema.sweep("sw-scoped", id), "finishedAt", Long.toString(System.currentTimeMillis() - 61_000));
        }
        asDriver(token).get("/sweeps/" + id).then().statusCode(401);
    }

    /**
     * A sweep whose driver job is gone (it expired, or the manager stopped before storing it), or has
     * ended, is ended by the manager's look at drivers, with nobody reading it; the sweep leaves the
     * pool's drivers hash as it ends. A driver named a moment ago and not stored yet is not gone.
     */
    @Test
    void aSweepWhoseDriverIsGoneOrEndedEndsWithNobodyReadingIt() {
        Api.putPool("sw-orphan", trialPool(0, 1, Map.of()));
        Api.putPool("sw-orphan-driver", Map.of("command", List.of("sleep", "300"), "minIdle", 0, "maxSize", 1));
        String gone = submitSweep(study("sw-orphan", 2, Map.of("driver", "sw-orphan-driver")));
        String ended = submitSweep(study("sw-orphan", 2, Map.of("driver", "sw-orphan-driver")));
        String storing = submitSweep(study("sw-orphan", 2, Map.of("driver", "sw-orphan-driver")));
        String goneJob = sweep(gone).getString("driver.job");
        String endedJob = sweep(ended).getString("driver.job");
        try (Jedis redis = new Jedis(URI.create(redisUrl))) {
            assertEquals(
                    Map.of(
                            gone,
                            goneJob,
                            ended,
                            endedJob,
                            storing,
                            sweep(storing).getString("driver.job")),
                    redis.hgetAll(KeySchema.sweepDrivers("sw-orphan")),
                    "each sweep a driver feeds is looked at");
            // gone: named ten minutes ago, and no such job; storing: named now, not stored yet
            redis.del(KeySchema.job("sw-orphan-driver", goneJob));
            String expired = Ids.newJobId("sw-orphan-driver", System.currentTimeMillis() - 600_000);
            redis.hset(KeySchema.sweepDrivers("sw-orphan"), gone, expired);
            String notYet = Ids.newJobId("sw-orphan-driver", System.currentTimeMillis());
            redis.hset(KeySchema.sweepDrivers("sw-orphan"), storing, notYet);
            given().delete("/jobs/" + endedJob).then().statusCode(200);
            // only Redis is read from here on: no API read may be what ends them
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> !"RUNNING".equals(redis.hget(KeySchema.sweep("sw-orphan", gone), "state"))
                            && !"RUNNING".equals(redis.hget(KeySchema.sweep("sw-orphan", ended), "state")));
            assertEquals("CANCELLED", redis.hget(KeySchema.sweep("sw-orphan", gone), "state"));
            assertTrue(
                    redis.hget(KeySchema.sweep("sw-orphan", gone), "error").contains("is gone"),
                    redis.hgetAll(KeySchema.sweep("sw-orphan", gone)).toString());
            assertEquals("CANCELLED", redis.hget(KeySchema.sweep("sw-orphan", ended), "state"));
            assertTrue(
                    redis.hget(KeySchema.sweep("sw-orphan", ended), "error").contains("ended CANCELLED"),
                    redis.hgetAll(KeySchema.sweep("sw-orphan", ended)).toString());
            assertEquals(
                    Map.of(storing, notYet),
                    redis.hgetAll(KeySchema.sweepDrivers("sw-orphan")),
                    "ended sweeps leave it; the one whose driver is being stored stays");
            assertEquals("RUNNING", redis.hget(KeySchema.sweep("sw-orphan", storing), "state"));
        }
        assertEquals("CANCELLED", sweep(gone).getString("state"));
        given().delete("/sweeps/" + storing).then().statusCode(200);
    }

    /** The relay's connections (from 127.0.0.2) reach a sweep's paths with a driver's token, and nothing else. */
    @Test
    void aRelayedConnectionReachesItsSweepWithItsTokenAndNothingElse() throws Exception {
        Api.putPool("sw-relayed", trialPool(0, 1, Map.of()));
        Api.putPool("sw-relayed-driver", Map.of("command", List.of("sleep", "300"), "minIdle", 0, "maxSize", 1));
        String id = submitSweep(study("sw-relayed", 2, Map.of("driver", "sw-relayed-driver")));
        String token;
        try (Jedis redis = new Jedis(URI.create(redisUrl))) {
            token = redis.hget(KeySchema.job("sw-relayed-driver", sweep(id).getString("driver.job")), "apiToken");
        }
        assertEquals(200, relayed("/sweeps/" + id, token));
        assertEquals(403, relayed("/q/health", null), "no tokenless path");
        assertEquals(403, relayed("/q/metrics", token), "no path outside the sweeps and jobs");
        assertEquals(403, relayed("/sweeps/" + id, Tokens.ADMIN), "no token but a driver's");
        given().delete("/sweeps/" + id).then().statusCode(200);
    }

    /** The status of a GET of {@code path} on a connection from the relay's address, as a driver's relay makes it. */
    static int relayed(String path, String token) throws IOException {
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(Relay.SOURCE, 0));
            s.connect(new InetSocketAddress("127.0.0.1", RestAssured.port), 5_000);
            s.setSoTimeout(10_000);
            String request = "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                    + (token == null ? "" : "Authorization: Bearer " + token + "\r\n") + "\r\n";
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            String status =
                    new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine();
            return Integer.parseInt(status.split(" ")[1]);
        }
    }

    static RequestSpecification asDriver(String token) {
        return given().header("Authorization", "Bearer " + token);
    }
}
