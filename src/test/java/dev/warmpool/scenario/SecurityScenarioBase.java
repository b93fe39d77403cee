package dev.warmpool.scenario;

import static dev.warmpool.testing.Tokens.bearer;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import dev.warmpool.testing.Tokens;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What the security scenarios share: callers with and without a token, a shell pool, the
 * unauthenticated answer, CloudEvent requests. {@link SecurityScenarios} holds tokens, roles and a
 * pool's submitters; {@link SecurityIsolationScenarios} what a job may set and see, idempotency and
 * env redaction.
 */
abstract class SecurityScenarioBase {
    static {
        Tokens.asAdminByDefault();
    }

    static final String PROBLEM = "application/problem+json";

    static RequestSpecification anonymous() {
        return given().noFilters();
    }

    static RequestSpecification as(String token) {
        return given().header("Authorization", bearer(token));
    }

    static Map<String, Object> shPool(String script, Map<String, Object> extra) {
        Map<String, Object> p = new HashMap<>(
                Map.of("command", List.of("sh", "-c", script), "minIdle", 1, "maxSize", 2, "idleTimeoutSeconds", 300));
        p.putAll(extra);
        return p;
    }

    static void unauthenticated(Response r) {
        r.then()
                .statusCode(401)
                .contentType(PROBLEM)
                .header("WWW-Authenticate", containsString("Bearer"))
                .body("type", equalTo("https://warmpool.dev/problems/unauthenticated"));
    }

    static RequestSpecification event(RequestSpecification r, String id) {
        return r.header("ce-specversion", "1.0")
                .header("ce-id", id)
                .header("ce-source", "/tests/pipeline")
                .header("ce-type", "dev.warmpool.job.submit")
                .contentType("application/json");
    }

    static RequestSpecification event(RequestSpecification r) {
        return r.header("ce-specversion", "1.0")
                .header("ce-id", UUID.randomUUID().toString())
                .header("ce-source", "/tests")
                .header("ce-type", "dev.warmpool.job.submit")
                .contentType("application/json");
    }
}
