package dev.warmpool;

import static dev.warmpool.testing.Api.awaitEnd;
import static dev.warmpool.testing.Api.awaitIdle;
import static dev.warmpool.testing.Api.pool;
import static dev.warmpool.testing.Api.putPool;
import static dev.warmpool.testing.Api.submit;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.pool.PodTemplate;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.runtime.ProcessorRuntime;
import dev.warmpool.store.PoolStore;
import dev.warmpool.testing.Tokens;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.ValidatableResponse;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A pool's runtime is part of the pool: filled in and stored at PUT, shown in its view; a spec its
 * runtime cannot honour, or one on a runtime this manager lacks (the test manager has only local
 * processes), is refused naming the field; a stored pool on a runtime this manager lacks is never
 * run on another: it gets a startError that says so.
 */
@QuarkusTest
class PoolRuntimeTests {
    static {
        Tokens.asAdminByDefault();
    }

    @Inject
    PoolStore store;

    @Inject
    ProcessorRuntime runtime;

    /** The pools left keep no processor starting (nor failing to) for the tests after these. */
    @AfterEach
    void deletePools() {
        for (String type : List.of("rt-default", "rt-local", "rt-was-docker", "rt-old-image", "rt-keeps")) {
            given().delete("/pools/" + type);
        }
    }

    static ValidatableResponse put(String type, Map<String, Object> body) {
        return given().contentType("application/json")
                .body(body)
                .put("/pools/" + type)
                .then();
    }

    static ValidatableResponse refused(String type, Map<String, Object> body, String field) {
        return put(type, body)
                .statusCode(400)
                .contentType(startsWith("application/problem+json"))
                .body("field", equalTo(field));
    }

    static Map<String, Object> body(Object... more) {
        Map<String, Object> body = new HashMap<>(Map.of("command", List.of("true"), "minIdle", 0));
        for (int i = 0; i < more.length; i += 2) {
            body.put((String) more[i], more[i + 1]);
        }
        return body;
    }

    @Test
    void aPoolThatNamesNoRuntimeGetsTheManagersDefaultStoredAndShown() {
        assertEquals("local", putPool("rt-default", body()).getString("spec.runtime"));
        assertEquals("local", pool("rt-default").getString("spec.runtime"));
        assertEquals(
                "local",
                store.snapshot("rt-default")
                        .await()
                        .atMost(Duration.ofSeconds(5))
                        .orElseThrow()
                        .spec()
                        .runtime(),
                "stored with the pool, so a manager with another default runs it on the same runtime");
    }

    @Test
    void aLocalPoolRunsItsJobsAndKeepsLimitsOnlyTemplates() {
        putPool(
                "rt-local",
                body(
                        "runtime",
                        "local",
                        "minIdle",
                        1,
                        "template",
                        Map.of("image", "local", "resources", Map.of("limits", Map.of("pids", "512")))));
        awaitIdle("rt-local", 1);
        assertEquals("SUCCEEDED", awaitEnd(submit(Map.of("type", "rt-local"))).getString("state"));
    }

    @Test
    void aPoolKeepsItsRuntime() {
        store.putPool("rt-keeps", onDocker().withRuntime("docker")).await().atMost(Duration.ofSeconds(5));
        put("rt-keeps", body("minIdle", 0))
                .statusCode(409)
                .contentType(startsWith("application/problem+json"))
                .body("field", equalTo("runtime"))
                .body("detail", containsString("runs on the docker runtime"));
        assertEquals("docker", pool("rt-keeps").getString("spec.runtime"), "unchanged");
    }

    @Test
    void aRuntimeThisManagerLacksIsRefusedAtPut() {
        refused("rt-docker", body("runtime", "docker", "template", Map.of("image", "python:3.12-slim")), "runtime")
                .body("detail", containsString("no docker runtime"))
                .body("detail", containsString("warmpool.runtime.docker.host"))
                .body("runtimes", equalTo(List.of("local")));
        refused("rt-k8s", body("runtime", "kubernetes", "template", Map.of("image", "python:3.12-slim")), "runtime")
                .body("detail", containsString("no kubernetes runtime"));
        given().get("/pools/rt-docker").then().statusCode(404);
    }

    @Test
    void anUnknownRuntimeIsRefusedWithTheChoices() {
        refused("rt-bad", body("runtime", "podman"), "runtime").body("detail", containsString("\"docker\""));
    }

    @Test
    void anImageIsNeverIgnoredOnTheLocalRuntime() {
        // a pool with an image runs in containers: this manager has none, so it is refused, not run on the host
        refused("rt-image", body("template", Map.of("image", "python:3.12-slim")), "runtime")
                .body("detail", containsString("its template names an image"));
        refused("rt-image", body("runtime", "local", "template", Map.of("image", "python:3.12-slim")), "template.image")
                .body("detail", containsString("would not be used"));
        refused("rt-image", body("template", Map.of("image", "local", "env", Map.of("A", "1"))), "template.env")
                .body("detail", containsString("honours only 'template.resources.limits'"));
        refused(
                "rt-image",
                body("template", Map.of("image", "local", "resources", Map.of("requests", Map.of("memory", "1Gi")))),
                "template.resources.requests");
        given().get("/pools/rt-image").then().statusCode(404);
    }

    /** A pool with an image, minIdle 1, as stored before it named a runtime. */
    static PoolSpec onDocker() {
        return PoolSpec.builder()
                .command(List.of("hostname"))
                .minIdle(1)
                .maxSize(1)
                .idleTimeoutSeconds(300)
                .env(Map.of())
                .template(
                        new PodTemplate("python:3.12-slim", null, null, null, null, null, null, null, null, null, null))
                .build()
                .withDefaults();
    }

    @Test
    void aStoredPoolOnARuntimeThisManagerLacksGetsAStartErrorAndRunsNowhere() {
        PoolSpec onDocker = onDocker();
        // as a docker manager stored it, and as one stored it before pools named their runtime
        store.putPool("rt-was-docker", onDocker.withRuntime("docker")).await().atMost(Duration.ofSeconds(5));
        store.putPool("rt-old-image", onDocker).await().atMost(Duration.ofSeconds(5));
        String job = submit(Map.of("type", "rt-was-docker"));
        for (String type : List.of("rt-was-docker", "rt-old-image")) {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> given().get("/pools/" + type)
                                    .then()
                                    .extract()
                                    .jsonPath()
                                    .getString("startError.reason")
                            != null);
            JsonPath view = pool(type);
            assertEquals("docker", view.getString("spec.runtime"));
            assertTrue(
                    view.getString("startError.reason").contains("runs on the docker runtime, and this manager has no"),
                    view.getString("startError.reason"));
            assertTrue(
                    runtime.list().stream().noneMatch(r -> r.type().equals(type)),
                    "no processor of " + type + " runs on the host");
        }
        String state = given().get("/jobs/" + job).then().extract().jsonPath().getString("state");
        assertTrue(
                List.of("QUEUED", "FAILED").contains(state),
                "its job is held or failed for want of its runtime, never run elsewhere: " + state);
    }
}
