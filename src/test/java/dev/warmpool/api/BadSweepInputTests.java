package dev.warmpool.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.warmpool.testing.Api;
import dev.warmpool.testing.Tokens;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every bad sweep (a body, a structured event, an id) gets a problem+json that names what is wrong, and stores nothing. */
@QuarkusTest
public class BadSweepInputTests {
    static {
        Tokens.asAdminByDefault();
    }

    static final String POOL = BadInputTests.POOL;

    @BeforeEach
    void pool() {
        Api.putPool(POOL, Map.of("command", List.of("true"), "minIdle", 0, "maxSize", 1));
    }

    static ValidatableResponse problem(ValidatableResponse r, int status) {
        return BadInputTests.problem(r, status);
    }

    /**
     * An Optuna sweep of the test pool with {@code changes} over a valid one (an empty string removes a
     * field; the valid one itself is accepted, see the scoped-driver tests).
     */
    static Map<String, Object> optuna(Map<String, Object> changes) {
        Map<String, Object> body = new HashMap<>(Map.of(
                "type",
                POOL,
                "algorithm",
                "optuna",
                "trials",
                4,
                "objective",
                Map.of("metric", "loss"),
                "space",
                Map.of("x", Map.of("uniform", List.of(0, 1)))));
        changes.forEach((k, v) -> {
            if ("".equals(v)) {
                body.remove(k);
            } else {
                body.put(k, v);
            }
        });
        return body;
    }

    static Stream<Arguments> badSweeps() {
        Map<String, Object> grid = Map.of("x", Map.of("grid", List.of(1, 2)));
        return Stream.of(
                Arguments.of(Map.of("type", POOL), "space", "'space' is required"),
                Arguments.of(Map.of("type", POOL, "space", List.of(1)), "space", "at least one parameter"),
                Arguments.of(
                        Map.of("type", POOL, "space", Map.of("x", Map.of("normal", List.of(0, 1)))),
                        "space",
                        "unknown kind 'normal'"),
                Arguments.of(
                        Map.of("type", POOL, "space", Map.of("x", Map.of("uniform", List.of(0, 1)))),
                        "space",
                        "use the random algorithm"),
                Arguments.of(
                        Map.of("type", POOL, "space", Map.of("x", Map.of("uniform", List.of(1, 0))), "trials", 3),
                        "space",
                        "lo < hi"),
                Arguments.of(
                        Map.of("type", POOL, "space", Map.of("x", Map.of("logUniform", List.of(0, 1))), "trials", 3),
                        "space",
                        "lo > 0"),
                Arguments.of(
                        Map.of(
                                "type",
                                POOL,
                                "space",
                                Map.of("x", Map.of("int", List.of(1, 1000)), "y", Map.of("int", List.of(1, 1000)))),
                        "space",
                        "more than 10000 configurations"),
                Arguments.of(Map.of("type", POOL, "space", grid, "algorithm", "random"), "trials", "needs 'trials'"),
                Arguments.of(optuna(Map.of("sampler", Map.of("name", "BayesSampler"))), "sampler.name", "TPESampler"),
                Arguments.of(
                        optuna(Map.of("sampler", Map.of("name", "TPESampler", "args", Map.of("n_trials", 3)))),
                        "sampler.args.n_trials",
                        "n_startup_trials"),
                Arguments.of(
                        optuna(Map.of("pruner", Map.of("name", "HyperbandPruner", "args", List.of(1)))),
                        "pruner.args",
                        "keyword arguments"),
                Arguments.of(optuna(Map.of("pruner", Map.of("args", Map.of()))), "pruner.name", "MedianPruner"),
                Arguments.of(optuna(Map.of("trials", "")), "trials", "needs 'trials'"),
                Arguments.of(optuna(Map.of("objective", "")), "objective", "one metric"),
                Arguments.of(
                        optuna(Map.of("earlyStopping", Map.of("rule", "median"))), "earlyStopping", "by its pruner"),
                Arguments.of(optuna(Map.of("seed", 1L << 32)), "seed", "4294967295"),
                Arguments.of(optuna(Map.of("driver", "no-such-driver-pool")), "driver", "no pool"),
                Arguments.of(
                        Map.of("type", POOL, "space", grid, "pruner", Map.of("name", "MedianPruner")),
                        "pruner",
                        "\"algorithm\": \"optuna\""),
                Arguments.of(
                        Map.of("type", POOL, "space", grid, "algorithm", "grid", "seed", 7),
                        "seed",
                        "random algorithm"),
                Arguments.of(Map.of("type", POOL, "space", grid, "algorithm", "bayes"), "algorithm", "\"grid\""),
                Arguments.of(Map.of("type", POOL, "space", grid, "parallelism", 0), "parallelism", "1 or more"),
                Arguments.of(
                        Map.of("type", POOL, "space", grid, "trials", 0, "algorithm", "random"), "trials", "1 or more"),
                Arguments.of(
                        Map.of("type", POOL, "space", grid, "objective", Map.of("goal", "minimize")),
                        "objective.metric",
                        "must name a metric"),
                Arguments.of(
                        Map.of("type", POOL, "space", grid, "objective", Map.of("metric", "loss", "goal", "lowest")),
                        "objective.goal",
                        "minimize"),
                Arguments.of(
                        Map.of("type", POOL, "space", grid, "earlyStopping", Map.of("minSteps", 2)),
                        "earlyStopping",
                        "give an 'objective'"),
                Arguments.of(
                        Map.of(
                                "type",
                                POOL,
                                "space",
                                grid,
                                "objective",
                                Map.of("metric", "loss"),
                                "earlyStopping",
                                Map.of("rule", "hyperband")),
                        "earlyStopping.rule",
                        "median"),
                Arguments.of(
                        Map.of("type", POOL, "space", grid, "maxFailedTrials", -1), "maxFailedTrials", "0 or more"),
                Arguments.of(Map.of("type", POOL, "space", grid, "colour", "blue"), "colour", "colour"),
                Arguments.of(Map.of("space", grid), "type", "must name the job type"),
                Arguments.of(
                        Map.of("type", POOL, "space", grid, "algorithm", "random", "trials", 2, "seed", -1),
                        "seed",
                        "0 or more"),
                Arguments.of(
                        Map.of("type", POOL, "space", grid, "algorithm", "random", "trials", 2, "seed", 1L << 53),
                        "seed",
                        "at most 9007199254740991"),
                Arguments.of(
                        Map.of("type", POOL, "space", grid, "algorithm", "random", "trials", 2, "seed", 1e308),
                        "seed",
                        "whole number"),
                Arguments.of(
                        Map.of("type", POOL, "space", grid, "algorithm", "random", "trials", 1e308),
                        "trials",
                        "whole number"),
                Arguments.of(Map.of("type", POOL, "space", grid, "priority", 1e308), "priority", "whole number"),
                Arguments.of(
                        Map.of("type", POOL, "space", grid, "timeoutSeconds", new BigInteger("99999999999999999999")),
                        "timeoutSeconds",
                        "out of range"),
                Arguments.of(
                        Map.of("type", POOL, "space", grid, "maxFailedTrials", 10_001),
                        "maxFailedTrials",
                        "at most 10000"),
                Arguments.of(
                        Map.of(
                                "type",
                                POOL,
                                "space",
                                grid,
                                "objective",
                                Map.of("metric", "loss"),
                                "earlyStopping",
                                Map.of("minTrials", 10_001)),
                        "earlyStopping.minTrials",
                        "at most 10000"),
                Arguments.of(
                        Map.of(
                                "type",
                                POOL,
                                "space",
                                Map.of("x", Map.of("uniform", List.of(-1e308, 1e308))),
                                "trials",
                                2),
                        "space",
                        "finite range"),
                Arguments.of(
                        Map.of("type", POOL, "space", Map.of("x", Map.of("int", List.of(0, 1e300))), "trials", 2),
                        "space",
                        "whole numbers from -9007199254740991"));
    }

    static Stream<Arguments> badSweepEvents() {
        String grid = "\"space\": {\"x\": {\"grid\": [1, 2]}}";
        return Stream.of(
                Arguments.of(
                        "{\"type\": \"" + POOL + "\", " + grid
                                + ", \"algorithm\": \"random\", \"trials\": 2, \"seed\": 1e308}",
                        "seed"),
                Arguments.of(
                        "{\"type\": \"" + POOL + "\", " + grid
                                + ", \"algorithm\": \"random\", \"trials\": 2, \"seed\": -5}",
                        "seed"),
                Arguments.of(
                        "{\"type\": \"" + POOL + "\", " + grid + ", \"algorithm\": \"random\", \"trials\": 1e308}",
                        "trials"),
                Arguments.of(
                        "{\"type\": \"" + POOL + "\", " + grid + ", \"parallelism\": 99999999999999999999}",
                        "parallelism"));
    }

    @ParameterizedTest
    @MethodSource("badSweepEvents")
    void refusesAStructuredSweepEventWithANumberOutOfRangeNamingTheField(String data, String field) {
        String event = "{\"specversion\": \"1.0\", \"id\": \"" + UUID.randomUUID() + "\", \"source\": \"/bad\", "
                + "\"type\": \"dev.warmpool.sweep.submit\", \"datacontenttype\": \"application/json\", \"data\": "
                + data + "}";
        problem(
                        given().contentType("application/cloudevents+json")
                                .body(event)
                                .post("/")
                                .then(),
                        422)
                .body("field", equalTo(field));
        assertEquals(
                List.of(),
                given().get("/sweeps?type=" + POOL)
                        .then()
                        .statusCode(200)
                        .extract()
                        .jsonPath()
                        .getList("$"));
    }

    @ParameterizedTest
    @MethodSource("badSweeps")
    void refusesABadSweepNamingTheFieldAndStoresNothing(Map<String, Object> body, String field, String says) {
        int before = jobsOfPool();
        problem(
                        given().contentType("application/json")
                                .body(body)
                                .post("/sweeps")
                                .then(),
                        400)
                .body("field", equalTo(field))
                .body("detail", containsString(says));
        assertEquals(before, jobsOfPool());
        assertEquals(
                List.of(),
                given().get("/sweeps?type=" + POOL)
                        .then()
                        .statusCode(200)
                        .extract()
                        .jsonPath()
                        .getList("$"));
    }

    @Test
    void answersUnknownSweepsAndTrialIdsWithNotFound() {
        problem(
                        given().contentType("application/json")
                                .body(Map.of("type", "no-such-type", "space", Map.of("x", Map.of("grid", List.of(1)))))
                                .post("/sweeps")
                                .then(),
                        404)
                .body("knownTypes", hasItem(POOL));
        problem(given().get("/sweeps/" + POOL + ".0000000000abcdefgh").then(), 404)
                .body("type", equalTo("https://warmpool.dev/problems/sweep-not-found"));
        problem(given().get("/sweeps/" + POOL + ".0000000000abcdefgh-3").then(), 404)
                .body("type", equalTo("https://warmpool.dev/problems/sweep-not-found"));
        problem(given().delete("/sweeps/nothing").then(), 404);
        problem(given().get("/jobs?sweep=nothing").then(), 404);
        problem(
                        given().get("/jobs?sweep=" + POOL + ".0000000000abcdefgh&type=other")
                                .then(),
                        400)
                .body("field", equalTo("type"));
        problem(given().get("/sweeps?limit=0").then(), 400).body("field", equalTo("limit"));
    }

    private static int jobsOfPool() {
        return BadInputTests.jobsOfPool();
    }
}
