package dev.warmpool.scenario;

import static dev.warmpool.testing.Api.awaitEnd;
import static dev.warmpool.testing.Api.putPool;
import static dev.warmpool.testing.Api.submit;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.testing.Tokens;
import io.restassured.specification.RequestSpecification;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;

/**
 * What a job may set and see, in-process ({@link SecurityIsolationTests}) and against the packaged
 * app ({@link SecurityIsolationIT}): env names that would run code, what its process sees, an
 * idempotency key or CloudEvent id per caller, env values shown only to admins and the submitter.
 */
public abstract class SecurityIsolationScenarios extends SecurityScenarioBase {
    @Test
    public void refusesEveryEnvNameThatWouldRunCodeEvenWhenThePoolListsIt() {
        putPool("sec-env", shPool("true", Map.of("jobEnv", List.of("HF_*", "K"))));
        for (String name : List.of(
                "LD_PRELOAD",
                "LD_LIBRARY_PATH",
                "DYLD_INSERT_LIBRARIES",
                "WARMPOOL_REDIS_URL",
                "PATH",
                "BASH_ENV",
                "ENV",
                "HOME",
                "PYTHONPATH",
                "PYTHONSTARTUP",
                "PERL5OPT",
                "NODE_OPTIONS",
                "JAVA_TOOL_OPTIONS",
                "ld_preload")) {
            as(Tokens.ALICE)
                    .contentType("application/json")
                    .body(Map.of("type", "sec-env", "env", Map.of(name, "x")))
                    .post("/jobs")
                    .then()
                    .statusCode(400)
                    .contentType(PROBLEM)
                    .body("field", equalTo("env." + name));
        }
        as(Tokens.ALICE)
                .contentType("application/json")
                .body(Map.of("type", "sec-env", "env", Map.of("OTHER", "x")))
                .post("/jobs")
                .then()
                .statusCode(400)
                .body("field", equalTo("env.OTHER"))
                .body("detail", containsString("HF_*"));
        as(Tokens.ALICE)
                .contentType("application/json")
                .body(Map.of(
                        "type",
                        "sec-env",
                        "space",
                        Map.of("x", Map.of("grid", List.of(1))),
                        "env",
                        Map.of("PYTHONPATH", "/tmp")))
                .post("/sweeps")
                .then()
                .statusCode(400)
                .body("field", equalTo("env.PYTHONPATH"));
        given().contentType("application/json")
                .body(Map.of("command", List.of("true"), "jobEnv", List.of("LD_PRELOAD")))
                .put("/pools/sec-env2")
                .then()
                .statusCode(400)
                .body("field", equalTo("jobEnv[0]"));
        String ok = as(Tokens.ALICE)
                .contentType("application/json")
                .body(Map.of("type", "sec-env", "env", Map.of("HF_HOME", "/tmp/hf", "K", "v")))
                .post("/jobs")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getString("id");
        assertEquals("SUCCEEDED", awaitEnd(ok).getString("state"));
    }

    @Test
    public void aJobsProcessSeesNoRedisAddressNoTokenAndNoneOfTheAgentsEnvironment() {
        putPool("sec-see", shPool("env", Map.of("jobEnv", List.of("MINE"))));
        String id = as(Tokens.ALICE)
                .contentType("application/json")
                .body(Map.of("type", "sec-see", "env", Map.of("MINE", "1")))
                .post("/jobs")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getString("id");
        String seen = awaitEnd(id).getString("result.logTail");
        assertTrue(seen.contains("WARMPOOL_JOB_ID=" + id), seen);
        assertTrue(seen.contains("MINE=1"), seen);
        for (String secret : List.of(
                "WARMPOOL_REDIS",
                "redis://",
                "rediss://",
                "WARMPOOL_PROCESSOR_ID",
                "WARMPOOL_POOL=",
                Tokens.ADMIN,
                Tokens.ALICE,
                "K_SINK")) {
            assertFalse(seen.contains(secret), "the job saw " + secret + ":\n" + seen);
        }
    }

    @Test
    public void anIdempotencyKeyIsTheCallersOwnAndAnotherCallersSameKeyIsAnotherRequest() {
        putPool("sec-idem", shPool("true", Map.of("minIdle", 0)));
        String key = "idem-" + UUID.randomUUID();
        String body = "{\"type\": \"sec-idem\"}";
        String alices = as(Tokens.ALICE)
                .header("Idempotency-Key", key)
                .contentType("application/json")
                .body(body)
                .post("/jobs")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getString("id");
        String bobs = as(Tokens.BOB)
                .header("Idempotency-Key", key)
                .contentType("application/json")
                .body(body)
                .post("/jobs")
                .then()
                .statusCode(202)
                .body("submittedBy", equalTo("bob"))
                .extract()
                .jsonPath()
                .getString("id");
        assertFalse(alices.equals(bobs), "Bob got Alice's job back");
        as(Tokens.BOB)
                .header("Idempotency-Key", key)
                .contentType("application/json")
                .body("{\"type\": \"sec-idem\", \"priority\": 3}")
                .post("/jobs")
                .then()
                .statusCode(422)
                .body("type", equalTo("https://warmpool.dev/problems/idempotency-key-reused"))
                .body("job", equalTo(bobs));
        as(Tokens.ALICE)
                .header("Idempotency-Key", key)
                .contentType("application/json")
                .body(body)
                .post("/jobs")
                .then()
                .statusCode(202)
                .body("id", equalTo(alices));

        String batch = "{\"jobs\": [" + body + "]}";
        String batchKey = key + "-batch";
        String alicesBatch = as(Tokens.ALICE)
                .header("Idempotency-Key", batchKey)
                .contentType("application/json")
                .body(batch)
                .post("/jobs/batch")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getString("jobs[0].id");
        as(Tokens.BOB)
                .header("Idempotency-Key", batchKey)
                .contentType("application/json")
                .body(batch)
                .post("/jobs/batch")
                .then()
                .statusCode(202)
                .body("jobs[0].id", Matchers.not(equalTo(alicesBatch)))
                .body("jobs[0].submittedBy", equalTo("bob"));

        String sweep = "{\"type\": \"sec-idem\", \"space\": {\"x\": {\"grid\": [1]}}}";
        String sweepKey = key + "-sweep";
        String alicesSweep = as(Tokens.ALICE)
                .header("Idempotency-Key", sweepKey)
                .contentType("application/json")
                .body(sweep)
                .post("/sweeps")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getString("id");
        as(Tokens.BOB)
                .header("Idempotency-Key", sweepKey)
                .contentType("application/json")
                .body(sweep)
                .post("/sweeps")
                .then()
                .statusCode(202)
                .body("id", Matchers.not(equalTo(alicesSweep)))
                .body("submittedBy", equalTo("bob"));
    }

    @Test
    public void aCloudEventIdSentFirstByAnotherIdentityDoesNotBlockTheRealEvent() {
        putPool("sec-ce-idem", shPool("true", Map.of("minIdle", 0)));
        String id = "pipeline-run-" + UUID.randomUUID();
        String body = "{\"type\": \"sec-ce-idem\"}";
        String bobs = event(as(Tokens.BOB), id)
                .body(body)
                .post("/")
                .then()
                .statusCode(202)
                .body("submittedBy", equalTo("bob"))
                .extract()
                .jsonPath()
                .getString("id");
        String real = event(as(Tokens.ALICE), id)
                .body(body)
                .post("/")
                .then()
                .statusCode(202)
                .body("submittedBy", equalTo("alice"))
                .extract()
                .jsonPath()
                .getString("id");
        assertFalse(real.equals(bobs), "the real event got Bob's job");
        event(as(Tokens.ALICE), id)
                .body(body)
                .post("/")
                .then()
                .statusCode(202)
                .body("id", equalTo(real)); // a redelivery
    }

    @Test
    public void envValuesAreShownOnlyToAdminsAndToTheJobsOwnSubmitter() {
        putPool(
                "sec-secret",
                shPool(
                        "true",
                        Map.of(
                                "minIdle",
                                0,
                                "env",
                                Map.of("HF_TOKEN", "hf-pool-secret"),
                                "jobEnv",
                                List.of("WANDB_API_KEY"))));
        putPool(
                "sec-secret-gang",
                Map.of(
                        "command",
                        List.of("true"),
                        "minIdle",
                        0,
                        "maxSize",
                        1,
                        "gang",
                        Map.of("worker", Map.of("count", 1, "env", Map.of("GANG_KEY", "gang-secret"))),
                        "network",
                        "host"));
        // a template's env (docker and kubernetes pools; refused on local) is masked as the pool's: PoolSpecTests
        String id = as(Tokens.ALICE)
                .contentType("application/json")
                .body(Map.of("type", "sec-secret", "env", Map.of("WANDB_API_KEY", "alice-secret")))
                .post("/jobs")
                .then()
                .statusCode(202)
                .body("env.WANDB_API_KEY", equalTo("alice-secret"))
                .extract()
                .jsonPath()
                .getString("id");
        awaitEnd(id);
        List<String> secrets = List.of("hf-pool-secret", "gang-secret", "alice-secret");
        for (String reader : List.of(Tokens.VIEWER, Tokens.BOB)) {
            as(reader).get("/pools/sec-secret").then().statusCode(200).body("spec.env.HF_TOKEN", equalTo("***"));
            as(reader)
                    .get("/pools/sec-secret-gang")
                    .then()
                    .statusCode(200)
                    .body("spec.gang.worker.env.GANG_KEY", equalTo("***"));
            as(reader).get("/jobs/" + id).then().statusCode(200).body("env.WANDB_API_KEY", equalTo("***"));
            for (String path : List.of(
                    "/pools",
                    "/pools/sec-secret",
                    "/pools/sec-secret-gang",
                    "/jobs/" + id,
                    "/jobs/" + id + "?wait=1",
                    "/jobs?type=sec-secret",
                    "/jobs/" + id + "/events")) {
                String body =
                        as(reader).get(path).then().statusCode(200).extract().asString();
                assertTrue(
                        body.contains("WANDB_API_KEY") || body.contains("HF_TOKEN") || body.contains("GANG_KEY"),
                        path + " keeps the names: " + body);
                secrets.forEach(secret ->
                        assertFalse(body.contains(secret), reader + " read " + secret + " at " + path + ": " + body));
            }
        }
        as(Tokens.ALICE).get("/jobs/" + id).then().body("env.WANDB_API_KEY", equalTo("alice-secret"));
        assertTrue(
                as(Tokens.ALICE).get("/jobs/" + id + "/events").asString().contains("alice-secret"),
                "her own job's stream");
        as(Tokens.ALICE).get("/pools/sec-secret").then().body("spec.env.HF_TOKEN", equalTo("***"));
        given().get("/jobs/" + id).then().body("env.WANDB_API_KEY", equalTo("alice-secret"));
        given().get("/pools/sec-secret").then().body("spec.env.HF_TOKEN", equalTo("hf-pool-secret"));
        given().get("/pools/sec-secret-gang").then().body("spec.gang.worker.env.GANG_KEY", equalTo("gang-secret"));
    }

    @Test
    public void aResultFileLinkedToAFileOfTheAgentsFailsItsJobAndTellsNothingOfItAndTheNextJobRuns() throws Exception {
        // the agent's user's, JSON and all: the agent once returned it as the job's metrics
        Path secret = Files.createTempFile("agent-secret", ".json");
        try {
            Files.writeString(secret, "{\"stolen\": 1}");
            String script = "case \"$1\" in link) ln -s " + secret + " \"$WARMPOOL_RESULT\";;"
                    + " huge) head -c 3000000 /dev/zero | tr '\\0' 1 > \"$WARMPOOL_RESULT\";;"
                    + " *) echo '{\"loss\": 0.5}' > \"$WARMPOOL_RESULT\";; esac";
            putPool("sec-result", Map.of("command", List.of("sh", "-c", script, "sh"), "minIdle", 1, "maxSize", 1));
            var link = awaitEnd(submit(Map.of("type", "sec-result", "args", List.of("link"))));
            assertEquals("FAILED", link.getString("state"));
            assertTrue(link.getString("error").startsWith("the result file (WARMPOOL_RESULT) is not a regular file"));
            assertFalse(link.prettify().contains("stolen"), link.prettify());
            var huge = awaitEnd(submit(Map.of("type", "sec-result", "args", List.of("huge"))));
            assertEquals("FAILED", huge.getString("state"));
            assertEquals(
                    "the result file (WARMPOOL_RESULT) is larger than 1048576 bytes, the limit"
                            + " (warmpool.runtime.max-result-bytes)",
                    huge.getString("error"));
            var next = awaitEnd(submit(Map.of("type", "sec-result", "args", List.of("ok"))));
            assertEquals("SUCCEEDED", next.getString("state"), next.prettify());
            assertEquals(0.5f, next.getFloat("result.metrics.loss"));
        } finally {
            Files.deleteIfExists(secret);
        }
    }

    /** warmpool.auth.job-details=submitter (the default): what a job was given and printed is its submitter's, its group's and admins'. */
    @Test
    public void anotherTenantSeesAJobWithoutItsConfigArgsOrLogs() {
        putPool(
                "sec-details",
                shPool(
                        "echo printed-secret; printf '{}' > $WARMPOOL_RESULT",
                        Map.of("groups", Map.of("team-a", List.of("alice")))));
        String id = as(Tokens.ALICE)
                .contentType("application/json")
                .body(Map.of(
                        "type", "sec-details", "config", Map.of("token", "cfg-secret"), "args", List.of("arg-secret")))
                .post("/jobs")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getString("id");
        awaitEnd(id);
        for (String other : List.of(Tokens.BOB, Tokens.VIEWER)) {
            as(other)
                    .get("/jobs/" + id)
                    .then()
                    .statusCode(200)
                    .body("config.token", equalTo("***"))
                    .body("args[0]", equalTo("***"))
                    .body("state", equalTo("SUCCEEDED"));
            as(other)
                    .get("/jobs/" + id + "/logs")
                    .then()
                    .statusCode(403)
                    .contentType(PROBLEM)
                    .body("detail", containsString("job-details"));
            for (String path : List.of("/jobs/" + id, "/jobs?type=sec-details", "/jobs/" + id + "/events")) {
                String body =
                        as(other).get(path).then().statusCode(200).extract().asString();
                for (String secret : List.of("cfg-secret", "arg-secret", "printed-secret")) {
                    assertFalse(body.contains(secret), other + " read " + secret + " at " + path + ": " + body);
                }
            }
        }
        // carol's token carries the group team-a, the job's tenant; alice submitted it; the default caller is an admin
        for (RequestSpecification reader : List.of(as(Tokens.CAROL), as(Tokens.ALICE), given())) {
            reader.get("/jobs/" + id).then().statusCode(200).body("config.token", equalTo("cfg-secret"));
        }
        for (RequestSpecification reader : List.of(as(Tokens.CAROL), as(Tokens.ALICE), given())) {
            reader.get("/jobs/" + id + "/logs").then().statusCode(200).body(containsString("printed-secret"));
        }
    }
}
