package dev.warmpool.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.testing.Api;
import dev.warmpool.testing.Tokens;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every bad input gets a problem+json that names what is wrong, and stores nothing (sweeps: {@link BadSweepInputTests}). */
@QuarkusTest
public class BadInputTests {
    static {
        Tokens.asAdminByDefault();
    }

    static final String POOL = "bad-input";

    @BeforeEach
    void pool() {
        Api.putPool(POOL, Map.of("command", List.of("true"), "minIdle", 0, "maxSize", 1));
    }

    static ValidatableResponse problem(ValidatableResponse r, int status) {
        return r.statusCode(status)
                .contentType(startsWith("application/problem+json"))
                .body("status", equalTo(status))
                .body("type", startsWith("https://warmpool.dev/problems/"))
                .body("detail", Matchers.notNullValue());
    }

    static Stream<Arguments> badPools() {
        return Stream.of(
                Arguments.of("{\"command\": [\"true\"], \"minIdle\": -1}", "minIdle"),
                Arguments.of("{\"command\": [\"true\"], \"minIdle\": 3, \"maxSize\": 2}", "minIdle"),
                Arguments.of("{\"command\": [\"true\"], \"maxSize\": 0}", "maxSize"),
                Arguments.of("{\"command\": [\"true\"], \"idleTimeoutSeconds\": 0}", "idleTimeoutSeconds"),
                Arguments.of("{\"command\": []}", "command"),
                Arguments.of("{\"minIdle\": 1}", "command"),
                Arguments.of("{\"command\": [\"true\"], \"minIdel\": 1}", "minIdel"),
                Arguments.of("{\"command\": \"true\"}", "command"),
                Arguments.of("{\"command\": [\"true\"], \"maxSize\": \"four\"}", "maxSize"),
                Arguments.of("{\"command\": [\"true\"], \"maxSize\": 99999999999}", "maxSize"),
                Arguments.of("{\"command\": [\"true\"], \"env\": {\"A\": null}}", "env[A]"),
                Arguments.of("{\"command\": [\"true\"], \"worker\": \"thread\"}", "worker"),
                Arguments.of("{\"command\": [\"true\"], \"maxJobsPerProcessor\": 0}", "maxJobsPerProcessor"),
                Arguments.of("{\"command\": [\"true\"], \"maxJobsPerProcessor\": 2000000000}", "maxJobsPerProcessor"),
                Arguments.of("{\"command\": [\"true\"], \"maxAgeSeconds\": 2000000000}", "maxAgeSeconds"),
                Arguments.of("{\"command\": [\"true\"], \"maxAgeSeconds\": 1e308}", "maxAgeSeconds"),
                Arguments.of("{\"command\": [\"true\"], \"gang\": {\"ps\": {\"count\": 1}}}", "gang"),
                Arguments.of("{\"command\": [\"true\"], \"gang\": {\"worker\": {\"count\": 0}}}", "gang[worker].count"),
                Arguments.of("{\"command\": [\"true\"], \"gang\": {\"worker\": {}}}", "gang[worker].count"),
                Arguments.of("{\"command\": [\"true\"], \"gang\": {\"Work_er\": {\"count\": 1}}}", "gang<K>[Work_er]"),
                Arguments.of(
                        "{\"command\": [\"true\"], \"gang\": {\"worker\": {\"count\": 40}, \"ps\": {\"count\": 30}}}",
                        "gang"),
                Arguments.of(
                        "{\"command\": [\"true\"], \"worker\": \"persistent\", \"gang\": {\"worker\": {\"count\": 2}}}",
                        "worker"),
                Arguments.of("{\"command\": [\"true\"], \"network\": \"internet\"}", "network"),
                // a local gang's members meet on the host's loopback: it must ask for the host's network
                Arguments.of("{\"command\": [\"true\"], \"gang\": {\"worker\": {\"count\": 2}}}", "network"),
                Arguments.of(
                        "{\"command\": [\"true\"], \"network\": \"none\", \"gang\": {\"worker\": {\"count\": 2}}}",
                        "network"),
                // a gang needs no pool command when every role has its own, but one role without is one too many
                Arguments.of(
                        "{\"gang\": {\"ps\": {\"count\": 1, \"command\": [\"true\"]}, \"worker\": {\"count\": 2}}}",
                        "command"),
                // the Kubernetes template (read by its own deserializer, made on first use)
                Arguments.of("{\"command\": [\"true\"], \"template\": {\"agent\": \"built-in\"}}", "template.image"),
                Arguments.of(
                        "{\"command\": [\"true\"], \"template\": {\"image\": \"x\", \"agent\": \"sidecar\"}}",
                        "template.agent"),
                Arguments.of(
                        "{\"command\": [\"true\"], \"template\": {\"image\": \"x\", \"imagePullPolicy\": \"Always\"}}",
                        "template.imagePullPolicy"),
                Arguments.of(
                        "{\"command\": [\"true\"], \"template\": {\"image\": \"x\", \"tolerations\": \"all\"}}",
                        "template.tolerations"));
    }

    @ParameterizedTest
    @MethodSource("badPools")
    void refusesABadPoolNamingTheField(String body, String field) {
        problem(
                        given().contentType("application/json")
                                .body(body)
                                .put("/pools/bad-pool")
                                .then(),
                        400)
                .body("field", equalTo(field));
        given().get("/pools/bad-pool").then().statusCode(404);
    }

    @Test
    void anUnknownFieldIsNamedAsWrittenAndTheKnownOnesComeAsAListForAClientToNameInItsCallersWords() {
        problem(
                        given().contentType("application/json")
                                .body("{\"command\": [\"true\"], \"minIdel\": 1}")
                                .put("/pools/bad-pool")
                                .then(),
                        400)
                .body("field", equalTo("minIdel"))
                .body("detail", Matchers.containsString("Unknown field 'minIdel'"))
                .body("knownFields", Matchers.hasItems("minIdle", "idleTimeoutSeconds", "command"));
    }

    @Test
    void aPoolSizedBeyondTheMachineIsTakenWithAWarningAndAFittingOneWithNone() {
        given().contentType("application/json")
                .body("{\"command\": [\"true\"], \"minIdle\": 0, \"template\": {\"image\": \"local\","
                        + " \"resources\": {\"limits\": {\"cpu\": \"4096\"}}}}")
                .put("/pools/bad-input-big")
                .then()
                .statusCode(201)
                .body("type", equalTo("bad-input-big"))
                .body("spec.minIdle", equalTo(0))
                .body(
                        "warnings[0]",
                        Matchers.startsWith(
                                "template.resources.limits.cpu asks for 4096 cores per processor; this machine has "));
        given().contentType("application/json")
                .body("{\"command\": [\"true\"], \"minIdle\": 0}")
                .put("/pools/bad-input-big")
                .then()
                .statusCode(200)
                .body("$", Matchers.not(Matchers.hasKey("warnings")));
        given().delete("/pools/bad-input-big").then().statusCode(202);
    }

    @Test
    void aGangWhoseEveryRoleHasItsOwnCommandNeedsNoPoolCommand() {
        given().contentType("application/json")
                .body(
                        "{\"minIdle\": 0, \"network\": \"host\", \"gang\": {\"ps\": {\"count\": 1, \"command\": [\"sleep\", \"9\"]},"
                                + " \"worker\": {\"count\": 2, \"command\": [\"true\"]}}}")
                .put("/pools/bad-input-own-commands")
                .then()
                .statusCode(201)
                .body("spec.command", equalTo(List.of()))
                .body("spec.network", equalTo("host"));
        given().delete("/pools/bad-input-own-commands").then().statusCode(202);
    }

    @Test
    void aPoolsNetworkIsNoneUnlessItSaysSo() {
        given().contentType("application/json")
                .body("{\"command\": [\"true\"], \"minIdle\": 0}")
                .put("/pools/bad-input-network")
                .then()
                .statusCode(201)
                .body("spec.network", equalTo("none"));
        given().contentType("application/json")
                .body("{\"command\": [\"true\"], \"minIdle\": 0, \"network\": \"outbound\"}")
                .put("/pools/bad-input-network")
                .then()
                .statusCode(200)
                .body("spec.network", equalTo("outbound"));
        given().delete("/pools/bad-input-network").then().statusCode(202);
    }

    /** GET / (a browser's or curl's first look) says what this is and where to go, without a token. */
    @Test
    void theRootAnswersWithTheIndex() {
        given().noFilters()
                .get("/")
                .then()
                .statusCode(200)
                .body("service", equalTo("warmpool"))
                .body("links.pools", equalTo("/pools"))
                .body("links.openapi", equalTo("/q/openapi"));
    }

    /** The API's description asks of a pool what a request must send, no more: the rest has defaults. */
    @Test
    void theOpenApiPoolSpecRequiresNoFieldThatHasADefault() {
        List<String> required = given().queryParam("format", "json")
                .get("/q/openapi")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getList("components.schemas.PoolSpec.required");
        assertTrue(required == null || required.isEmpty(), "required: " + required);
    }

    @Test
    void refusesTurningAPoolIntoAGangPoolInPlace() {
        problem(
                        given().contentType("application/json")
                                .body(Map.of(
                                        "command",
                                        List.of("true"),
                                        "minIdle",
                                        0,
                                        "network",
                                        "host",
                                        "gang",
                                        Map.of("worker", Map.of("count", 2))))
                                .put("/pools/" + POOL)
                                .then(),
                        409)
                .body("type", equalTo("https://warmpool.dev/problems/gang-change"))
                .body("detail", containsString("DELETE /pools/" + POOL + " first"));
        given().get("/pools/" + POOL).then().statusCode(200).body("spec.gang", Matchers.nullValue());
    }

    @Test
    void refusesAnInvalidTypeName() {
        problem(
                        given().contentType("application/json")
                                .body(Map.of("command", List.of("true")))
                                .put("/pools/Bad_Type")
                                .then(),
                        400)
                .body("field", equalTo("type"));
    }

    @Test
    void refusesMalformedJson() {
        problem(
                        given().contentType("application/json")
                                .body("{\"command\": [")
                                .put("/pools/bad-pool")
                                .then(),
                        400)
                .body("type", equalTo("https://warmpool.dev/problems/malformed-json"));
        problem(
                        given().contentType("application/json")
                                .body("{\"type\": ")
                                .post("/jobs")
                                .then(),
                        400)
                .body("type", equalTo("https://warmpool.dev/problems/malformed-json"));
        problem(
                given().contentType("application/json")
                        .body("[1, 2]")
                        .post("/jobs")
                        .then(),
                400);
    }

    @Test
    void refusesAMissingBody() {
        problem(given().contentType("application/json").post("/jobs").then(), 400);
        problem(given().contentType("application/json").put("/pools/bad-pool").then(), 400);
    }

    @Test
    void refusesAnotherMediaType() {
        problem(given().contentType("text/plain").body("type=x").post("/jobs").then(), 415);
    }

    @Test
    void refusesABodyOverOneMebibyte() {
        String huge = "{\"type\": \"" + POOL + "\", \"args\": [\"" + "x".repeat(1024 * 1024 + 10) + "\"]}";
        int before = jobsOfPool();
        problem(given().contentType("application/json").body(huge).post("/jobs").then(), 413);
        assertEquals(before, jobsOfPool());
    }

    @Test
    void answersAnUnknownTypeWithTheKnownOnes() {
        problem(
                        given().contentType("application/json")
                                .body(Map.of("type", "no-such-type"))
                                .post("/jobs")
                                .then(),
                        404)
                .body("type", equalTo("https://warmpool.dev/problems/unknown-type"))
                .body("knownTypes", hasItem(POOL))
                .body("detail", containsString(POOL));
        problem(given().get("/pools/no-such-type").then(), 404).body("knownTypes", hasItem(POOL));
        problem(given().delete("/pools/no-such-type").then(), 404);
    }

    static Stream<Arguments> badJobs() {
        return Stream.of(
                Arguments.of(Map.of("type", POOL, "timeoutSeconds", 0), "timeoutSeconds"),
                Arguments.of(Map.of("type", POOL, "timeoutSeconds", -5), "timeoutSeconds"),
                Arguments.of(Map.of("type", POOL, "config", List.of(1, 2)), "config"),
                Arguments.of(Map.of("type", POOL, "config", "lr=0.1"), "config"),
                Arguments.of(Map.of("type", POOL, "priority", 5000), "priority"),
                Arguments.of(Map.of("type", POOL, "maxAttempts", 0), "maxAttempts"),
                Arguments.of(Map.of("type", POOL, "args", "not-a-list"), "args"),
                Arguments.of(Map.of("type", POOL, "args", List.of(Map.of("a", 1))), "args[0]"),
                Arguments.of(Map.of("type", POOL, "colour", "blue"), "colour"),
                Arguments.of(Map.of("args", List.of()), "type"),
                Arguments.of(Map.of("type", "UPPER"), "type"));
    }

    @ParameterizedTest
    @MethodSource("badJobs")
    void refusesABadJobNamingTheFieldAndStoresNothing(Map<String, Object> body, String field) {
        int before = jobsOfPool();
        problem(given().contentType("application/json").body(body).post("/jobs").then(), 400)
                .body("field", equalTo(field));
        assertEquals(before, jobsOfPool());
    }

    static Stream<Arguments> badBatches() {
        Map<String, Object> ok = Map.of("type", POOL);
        return Stream.of(
                Arguments.of(Map.of(), "jobs", "must list the jobs"),
                Arguments.of(Map.of("jobs", List.of()), "jobs", "1 to 1000 jobs"),
                Arguments.of(Map.of("jobs", Collections.nCopies(1001, ok)), "jobs", "1 to 1000 jobs"),
                Arguments.of(Map.of("jobs", ok), "jobs", "array"),
                Arguments.of(Map.of("jobs", List.of(ok, Map.of("type", "other"))), "jobs[1].type", "same type"),
                Arguments.of(
                        Map.of("jobs", List.of(ok, Map.of("type", POOL, "timeoutSeconds", 0))),
                        "jobs[1].timeoutSeconds",
                        "1 second or more"),
                Arguments.of(
                        Map.of("jobs", List.of(ok, Map.of("type", POOL, "config", List.of(1)))),
                        "jobs[1].config",
                        "JSON object"),
                Arguments.of(Map.of("jobs", List.of(Map.of("type", "UPPER"))), "jobs[0].type", "not a valid name"),
                Arguments.of(Map.of("jobs", List.of(ok), "colour", "blue"), "colour", "colour"));
    }

    @ParameterizedTest
    @MethodSource("badBatches")
    void refusesABadBatchNamingTheFieldAndStoresNothing(Map<String, Object> body, String field, String says) {
        int before = jobsOfPool();
        problem(
                        given().contentType("application/json")
                                .body(body)
                                .post("/jobs/batch")
                                .then(),
                        400)
                .body("field", equalTo(field))
                .body("detail", containsString(says));
        assertEquals(before, jobsOfPool());
    }

    @Test
    void refusesABatchWithANullJobAndOneForAnUnknownType() {
        problem(
                        given().contentType("application/json")
                                .body("{\"jobs\": [null]}")
                                .post("/jobs/batch")
                                .then(),
                        400)
                .body("field", equalTo("jobs[0]"));
        problem(
                        given().contentType("application/json")
                                .body(Map.of("jobs", List.of(Map.of("type", "no-such-type"))))
                                .post("/jobs/batch")
                                .then(),
                        404)
                .body("knownTypes", hasItem(POOL));
    }

    @Test
    void answersUnknownAndMalformedJobIdsWithNotFound() {
        problem(given().get("/jobs/" + POOL + ".0000000000abcdefgh").then(), 404)
                .body("type", equalTo("https://warmpool.dev/problems/job-not-found"));
        problem(given().get("/jobs/..%2F..%2Fetc%2Fpasswd").then(), 404);
        problem(given().urlEncodingEnabled(false).get("/jobs/wp:%7Bx%7D:job").then(), 404);
        problem(given().delete("/jobs/nothing").then(), 404);
    }

    @Test
    void refusesBadQueryParameters() {
        problem(given().get("/jobs/" + POOL + ".0000000000abcdefgh?wait=soon").then(), 400)
                .body("field", equalTo("wait"));
        problem(given().get("/jobs?state=DONE").then(), 400).body("field", equalTo("state"));
        problem(given().get("/jobs?limit=0").then(), 400).body("field", equalTo("limit"));
        problem(given().get("/jobs?limit=x").then(), 400).body("field", equalTo("limit"));
    }

    @Test
    void answersAnUnknownPathWithAProblem() {
        problem(given().get("/nothing-here").then(), 404);
    }

    static int jobsOfPool() {
        return given().get("/jobs?type=" + POOL + "&limit=1000")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getList("$")
                .size();
    }
}
