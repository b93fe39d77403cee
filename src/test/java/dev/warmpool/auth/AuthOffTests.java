package dev.warmpool.auth;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** warmpool.auth.enabled=false: every caller is the local admin (and the manager listens on loopback only). */
@QuarkusTest
@TestProfile(AuthOffTests.Off.class)
class AuthOffTests {
    public static class Off implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("warmpool.auth.enabled", "false");
        }
    }

    @Test
    void takesCallsWithoutATokenAsTheLocalAdmin() {
        given().noFilters().contentType("application/json").body("{\"command\": [\"true\"], \"minIdle\": 0}")
                .put("/pools/auth-off").then().statusCode(201);
        given().noFilters().contentType("application/json").body("{\"type\": \"auth-off\"}").post("/jobs")
                .then().statusCode(202).body("submittedBy", equalTo("local"));
        given().noFilters().get("/q/metrics").then().statusCode(200);
    }

    @Test
    void refusesToListenBeyondLoopbackWithoutAuthentication() {
        org.junit.jupiter.api.Assertions.assertTrue(dev.warmpool.config.ConfigCheck.loopback("127.0.0.1"));
        org.junit.jupiter.api.Assertions.assertTrue(dev.warmpool.config.ConfigCheck.loopback("localhost"));
        org.junit.jupiter.api.Assertions.assertFalse(dev.warmpool.config.ConfigCheck.loopback("0.0.0.0"));
    }
}
