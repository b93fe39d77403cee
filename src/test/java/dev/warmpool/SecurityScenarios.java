package dev.warmpool;

import static dev.warmpool.testing.Api.awaitEnd;
import static dev.warmpool.testing.Api.awaitIdle;
import static dev.warmpool.testing.Api.putPool;
import static dev.warmpool.testing.Tokens.bearer;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.testing.Tokens;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Who may do what, in-process and against the packaged app: tokens, roles, a pool's submitters,
 * what a job may set in its env and what its process sees.
 */
public abstract class SecurityScenarios {
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
        Map<String, Object> p = new java.util.HashMap<>(
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

    @Test
    public void refusesACallWithoutATokenOrWithAWrongOneAsProblemJson() {
        unauthenticated(anonymous().get("/pools"));
        unauthenticated(anonymous()
                .contentType("application/json")
                .body("{\"type\": \"x\"}")
                .post("/jobs"));
        unauthenticated(as("not-a-token").get("/jobs"));
        unauthenticated(given().noFilters()
                .header("Authorization", "Basic YWRtaW46YWRtaW4=")
                .get("/pools"));
        unauthenticated(given().noFilters().header("Authorization", "Bearer ").get("/pools"));
        Response r = as("wp-guess-1234").get("/sweeps");
        unauthenticated(r);
        assertFalse(r.asString().contains("wp-guess-1234"), "a refusal never echoes the token: " + r.asString());
    }

    @Test
    public void leavesHealthOpenAndMetricsToTokenHolders() {
        anonymous().get("/q/health/ready").then().statusCode(200);
        anonymous().get("/q/health/live").then().statusCode(200);
        anonymous().get("/q/metrics").then().statusCode(401);
        as(Tokens.VIEWER).get("/q/metrics").then().statusCode(200);
    }

    /** {method, path, body, the lowest role that may}: each role below it gets 403, it and those above do not. */
    static final List<Object[]> TABLE = List.of(
            new Object[] {"GET", "/pools", null, Tokens.VIEWER},
            new Object[] {"GET", "/pools/sec-table", null, Tokens.VIEWER},
            new Object[] {"GET", "/jobs?type=sec-table", null, Tokens.VIEWER},
            new Object[] {"GET", "/jobs/sec-table.nope", null, Tokens.VIEWER},
            new Object[] {"GET", "/sweeps", null, Tokens.VIEWER},
            new Object[] {"GET", "/sweeps/sec-table.nope", null, Tokens.VIEWER},
            new Object[] {"POST", "/jobs", "{\"type\": \"sec-table\"}", Tokens.ALICE},
            new Object[] {"POST", "/jobs/batch", "{\"jobs\": [{\"type\": \"sec-table\"}]}", Tokens.ALICE},
            new Object[] {
                "POST", "/sweeps", "{\"type\": \"sec-table\", \"space\": {\"x\": {\"grid\": [1]}}}", Tokens.ALICE
            },
            new Object[] {"DELETE", "/jobs/sec-table.nope", null, Tokens.ALICE},
            new Object[] {"DELETE", "/sweeps/sec-table.nope", null, Tokens.ALICE},
            new Object[] {"PUT", "/pools/sec-table", "{\"command\": [\"true\"], \"minIdle\": 0}", Tokens.ADMIN},
            new Object[] {"DELETE", "/pools/sec-table-none", null, Tokens.ADMIN});

    @Test
    public void givesEachRoleWhatItMayDoAndRefusesTheRestWith403() {
        putPool("sec-table", Map.of("command", List.of("true"), "minIdle", 0));
        List<String> ladder = List.of(Tokens.VIEWER, Tokens.ALICE, Tokens.ADMIN);
        for (Object[] row : TABLE) {
            int lowest = ladder.indexOf((String) row[3]);
            for (int i = 0; i < ladder.size(); i++) {
                RequestSpecification req = as(ladder.get(i)).contentType("application/json");
                if (row[2] != null) {
                    req.body(row[2]);
                }
                Response r = req.request((String) row[0], (String) row[1]);
                String what =
                        row[0] + " " + row[1] + " as " + ladder.get(i) + ": " + r.statusCode() + " " + r.asString();
                if (i < lowest) {
                    assertEquals(403, r.statusCode(), what);
                    assertEquals(PROBLEM, r.contentType(), what);
                    assertTrue(r.jsonPath().getList("requiredRoles").contains("admin"), what);
                } else {
                    assertTrue(r.statusCode() != 403 && r.statusCode() != 401 && r.statusCode() < 500, what);
                }
            }
        }
    }

    @Test
    public void aRefusedSubmitStoresNothing() {
        putPool("sec-store", shPool("true", Map.of()));
        int before = given().get("/jobs?type=sec-store&limit=1000")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getList("id")
                .size();
        as(Tokens.VIEWER)
                .contentType("application/json")
                .body("{\"type\": \"sec-store\"}")
                .post("/jobs")
                .then()
                .statusCode(403);
        anonymous()
                .contentType("application/json")
                .body("{\"type\": \"sec-store\"}")
                .post("/jobs")
                .then()
                .statusCode(401);
        as(Tokens.ALICE)
                .contentType("application/json")
                .body("{\"type\": \"sec-store\", \"env\": {\"LD_PRELOAD\": \"/tmp/x.so\"}}")
                .post("/jobs")
                .then()
                .statusCode(400);
        as(Tokens.VIEWER)
                .contentType("application/json")
                .body("{\"jobs\": [{\"type\": \"sec-store\"}]}")
                .post("/jobs/batch")
                .then()
                .statusCode(403);
        assertEquals(
                before,
                given().get("/jobs?type=sec-store&limit=1000")
                        .then()
                        .extract()
                        .jsonPath()
                        .getList("id")
                        .size());
    }

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
    public void recordsWhoSubmittedAndLetsOnlyThemOrAnAdminCancel() {
        putPool("sec-own", shPool("sleep 30", Map.of("maxSize", 3)));
        awaitIdle("sec-own", 1);
        String id = as(Tokens.ALICE)
                .contentType("application/json")
                .body("{\"type\": \"sec-own\"}")
                .post("/jobs")
                .then()
                .statusCode(202)
                .body("submittedBy", equalTo("alice"))
                .extract()
                .jsonPath()
                .getString("id");
        as(Tokens.VIEWER).get("/jobs/" + id).then().statusCode(200).body("submittedBy", equalTo("alice"));
        as(Tokens.BOB)
                .delete("/jobs/" + id)
                .then()
                .statusCode(403)
                .contentType(PROBLEM)
                .body("submittedBy", equalTo("alice"));
        given().get("/jobs/" + id).then().body("state", org.hamcrest.Matchers.not(equalTo("CANCELLED")));
        as(Tokens.ALICE).delete("/jobs/" + id).then().statusCode(200).body("state", equalTo("CANCELLED"));
        String bobs = as(Tokens.BOB)
                .contentType("application/json")
                .body("{\"type\": \"sec-own\"}")
                .post("/jobs")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getString("id");
        given().delete("/jobs/" + bobs).then().statusCode(200).body("state", equalTo("CANCELLED"));
        String sweep = as(Tokens.ALICE)
                .contentType("application/json")
                .body("{\"type\": \"sec-own\", \"space\": {\"x\": {\"grid\": [1, 2]}}, \"parallelism\": 1}")
                .post("/sweeps")
                .then()
                .statusCode(202)
                .body("submittedBy", equalTo("alice"))
                .extract()
                .jsonPath()
                .getString("id");
        as(Tokens.BOB).delete("/sweeps/" + sweep).then().statusCode(403);
        as(Tokens.ALICE).delete("/sweeps/" + sweep).then().statusCode(200).body("state", equalTo("CANCELLED"));
    }

    @Test
    public void aPoolThatNamesItsSubmittersTakesJobsFromThemAndAdminsOnly() {
        putPool("sec-team", shPool("true", Map.of("submitters", List.of("team-a"), "minIdle", 0)));
        as(Tokens.ALICE)
                .contentType("application/json")
                .body("{\"type\": \"sec-team\"}")
                .post("/jobs")
                .then()
                .statusCode(403)
                .contentType(PROBLEM)
                .body("pool", equalTo("sec-team"))
                .body("detail", containsString("team-a"));
        as(Tokens.CAROL)
                .contentType("application/json")
                .body("{\"type\": \"sec-team\"}")
                .post("/jobs")
                .then()
                .statusCode(202)
                .body("submittedBy", equalTo("carol"));
        given().contentType("application/json")
                .body("{\"type\": \"sec-team\"}")
                .post("/jobs")
                .then()
                .statusCode(202);
    }

    @Test
    public void refusesATemplateWithHostAccess() {
        given().contentType("application/json")
                .body(Map.of(
                        "command",
                        List.of("true"),
                        "template",
                        Map.of(
                                "image",
                                "img",
                                "volumes",
                                List.of(Map.of("name", "root", "hostPath", Map.of("path", "/"))))))
                .put("/pools/sec-host")
                .then()
                .statusCode(403)
                .contentType(PROBLEM)
                .body("field", equalTo("template.volumes"));
        given().contentType("application/json")
                .body(Map.of(
                        "command",
                        List.of("true"),
                        "template",
                        Map.of("image", "img", "securityContext", Map.of("privileged", true))))
                .put("/pools/sec-host")
                .then()
                .statusCode(403)
                .body("field", equalTo("template.securityContext.privileged"));
        given().get("/pools/sec-host").then().statusCode(404);
    }

    @Test
    public void takesACloudEventFromASubmitterOnly() {
        putPool("sec-ev", shPool("true", Map.of("minIdle", 0)));
        String body = "{\"type\": \"sec-ev\"}";
        unauthenticated(event(anonymous()).body(body).post("/"));
        event(as(Tokens.VIEWER)).body(body).post("/").then().statusCode(403).contentType(PROBLEM);
        event(as(Tokens.ALICE)).body(body).post("/").then().statusCode(202).body("submittedBy", equalTo("alice"));
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
                .body("jobs[0].id", org.hamcrest.Matchers.not(equalTo(alicesBatch)))
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
                .body("id", org.hamcrest.Matchers.not(equalTo(alicesSweep)))
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
                        "template",
                        Map.of("image", "img", "env", Map.of("TPL_KEY", "template-secret"))));
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
        List<String> secrets = List.of("hf-pool-secret", "gang-secret", "template-secret", "alice-secret");
        for (String reader : List.of(Tokens.VIEWER, Tokens.BOB)) {
            as(reader).get("/pools/sec-secret").then().statusCode(200).body("spec.env.HF_TOKEN", equalTo("***"));
            as(reader)
                    .get("/pools/sec-secret-gang")
                    .then()
                    .statusCode(200)
                    .body("spec.gang.worker.env.GANG_KEY", equalTo("***"))
                    .body("spec.template.env.TPL_KEY", equalTo("***"));
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
        given().get("/pools/sec-secret-gang")
                .then()
                .body("spec.gang.worker.env.GANG_KEY", equalTo("gang-secret"))
                .body("spec.template.env.TPL_KEY", equalTo("template-secret"));
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
