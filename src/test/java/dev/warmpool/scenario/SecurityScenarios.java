package dev.warmpool.scenario;

import static dev.warmpool.testing.Api.awaitIdle;
import static dev.warmpool.testing.Api.putPool;
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
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;

/**
 * Who may do what, in-process ({@link SecurityTests}) and against the packaged app ({@link SecurityIT}):
 * tokens, roles, a pool's submitters, who may cancel, host access in a template, CloudEvents.
 */
public abstract class SecurityScenarios extends SecurityScenarioBase {
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
        given().get("/jobs/" + id).then().body("state", Matchers.not(equalTo("CANCELLED")));
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
}
