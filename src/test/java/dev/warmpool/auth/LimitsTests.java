package dev.warmpool.auth;

import static dev.warmpool.testing.Tokens.bearer;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;

import dev.warmpool.testing.Tokens;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The operator's limits: a submit rate per caller, the images a pool may run. */
@QuarkusTest
@TestProfile(LimitsTests.Strict.class)
class LimitsTests {
    static {
        Tokens.asAdminByDefault();
    }

    public static class Strict implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "warmpool.limits.submits-per-second",
                    "0.01",
                    "warmpool.limits.submit-burst",
                    "3",
                    "warmpool.policy.images",
                    "registry.test/ml/,docker.io/library/python:");
        }
    }

    @Test
    void refusesACallerPastItsSubmitRateWith429AndRetryAfterWhileOthersGoOn() {
        given().contentType("application/json")
                .body("{\"command\": [\"true\"], \"minIdle\": 0}")
                .put("/pools/limited")
                .then()
                .statusCode(201);
        for (int i = 0; i < 3; i++) {
            given().header("Authorization", bearer(Tokens.BOB))
                    .contentType("application/json")
                    .body("{\"type\": \"limited\"}")
                    .post("/jobs")
                    .then()
                    .statusCode(202);
        }
        given().header("Authorization", bearer(Tokens.BOB))
                .contentType("application/json")
                .body("{\"type\": \"limited\"}")
                .post("/jobs")
                .then()
                .statusCode(429)
                .contentType("application/problem+json")
                .header("Retry-After", notNullValue())
                .body("type", equalTo("https://warmpool.dev/problems/rate-limited"));
        given().header("Authorization", bearer(Tokens.CAROL))
                .contentType("application/json")
                .body("{\"jobs\": [{\"type\": \"limited\"}, {\"type\": \"limited\"}]}")
                .post("/jobs/batch")
                .then()
                .statusCode(202);
        given().header("Authorization", bearer(Tokens.CAROL))
                .contentType("application/json")
                .body("{\"jobs\": [{\"type\": \"limited\"}, {\"type\": \"limited\"}]}")
                .post("/jobs/batch")
                .then()
                .statusCode(429);
    }

    @Test
    void refusesAPoolWhoseImageIsNotAllowed() {
        given().contentType("application/json")
                .body(Map.of("command", List.of("true"), "template", Map.of("image", "evil.example/miner:latest")))
                .put("/pools/img")
                .then()
                .statusCode(403)
                .contentType("application/problem+json")
                .body("field", equalTo("template.image"));
        given().contentType("application/json")
                .body(Map.of(
                        "command",
                        List.of("true"),
                        "minIdle",
                        0,
                        "template",
                        Map.of("image", "registry.test/ml/torch:2.4")))
                .put("/pools/img")
                .then()
                // the policy lets it pass; this manager has no container runtime for it (PoolRuntimeTests)
                .statusCode(400)
                .body("field", equalTo("runtime"));
    }
}
