package dev.warmpool.api;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.testing.Api;
import dev.warmpool.testing.Tokens;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * 1,500 malformed or hostile requests (bodies, paths and headers, with and without a token) from a seeded generator, for
 * each of three seeds: no 5xx, every refusal is
 * problem+json, and nothing is stored (the pools and the fuzz pool's jobs are as before).
 */
@QuarkusTest
class FuzzTests {
    static {
        Tokens.asAdminByDefault();
    }

    static final String POOL = "fuzz";
    Random random;

    /** Three seeds: each draws other requests, and a failure names the seed that replays it. */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {20261202, 20261206, 27})
    void survivesHostileRequestsWithoutAServerErrorOrAStoredByte(long seed) {
        random = new Random(seed);
        Api.putPool(POOL, Map.of("command", List.of("true"), "minIdle", 0, "maxSize", 1));
        List<String> poolsBefore =
                given().get("/pools").then().extract().jsonPath().getList("type");
        int jobsBefore = jobs();
        hammer(true, 900);
        hammer(false, 600);
        // no pool made by a fuzzed request, and the fuzzed one still there (another class's may have drained away)
        List<String> poolsAfter =
                given().get("/pools").then().extract().jsonPath().getList("type");
        assertTrue(poolsBefore.containsAll(poolsAfter) && poolsAfter.contains(POOL), poolsBefore + " -> " + poolsAfter);
        assertEquals(jobsBefore, jobs());
    }

    /**
     * Hostile bodies, paths and headers (Authorization, Content-Type, ce-*, Idempotency-Key:
     * empty, malformed, duplicated) on every endpoint; {@code withToken}: the calls carry the
     * admin's token unless a hostile Authorization replaces it, else none at all.
     */
    private void hammer(boolean withToken, int count) {
        List<Function<RequestSpecification, Response>> requests = List.of(
                r -> r.contentType("application/json").body(badJob()).post("/jobs"),
                r -> r.contentType("application/json")
                        .body("{\"jobs\": [" + badJob() + "]}")
                        .post("/jobs/batch"),
                r -> r.contentType("application/json").body(badSweep()).post("/sweeps"),
                r -> r.contentType("application/json").body(badPool()).put("/pools/" + name()),
                r -> r.contentType("application/json").body(badPool()).put("/pools/" + POOL),
                r -> r.urlEncodingEnabled(false).get("/jobs/" + hostileId()),
                r -> r.urlEncodingEnabled(false).delete("/jobs/" + hostileId()),
                r -> r.urlEncodingEnabled(false).delete("/sweeps/" + hostileId()),
                r -> r.urlEncodingEnabled(false).get("/pools/" + hostileId()),
                r -> r.urlEncodingEnabled(false).delete("/pools/" + pick("fuzz-none", hostileId())),
                r -> r.urlEncodingEnabled(false).get("/jobs?" + hostileQuery()),
                r -> r.get(pick("/sweeps", "/pools", "/q/metrics")),
                r -> event(r).post("/"),
                r -> r.contentType(pick("text/plain", "application/xml", "application/json; charset=latin1", "*/*"))
                        .body(bytes())
                        .post("/jobs"));
        for (int i = 0; i < count; i++) {
            RequestSpecification base = withToken ? given() : given().noFilters();
            Response r = requests.get(random.nextInt(requests.size())).apply(hostileHeaders(base));
            int status = r.statusCode();
            String what = (withToken ? "with" : "without") + " a token, request " + i;
            assertTrue(status < 500, what + " got " + status + ": " + r.asString());
            if (status >= 400) {
                assertTrue(
                        r.contentType().startsWith("application/problem+json"),
                        what + " (" + status + "): " + r.contentType());
                assertNotNull(r.jsonPath().getString("detail"));
                assertEquals(status, r.jsonPath().getInt("status"));
                assertFalse(r.asString().contains(Tokens.ADMIN), what + " echoed the token: " + r.asString());
            }
            // a hostile path can come down to "/" ("/pools/.."): the index, which holds no data, is open
            boolean index = status == 200
                    && String.valueOf(r.contentType()).startsWith("application/json")
                    && "warmpool".equals(r.jsonPath().getString("service"));
            if (!withToken && !index) {
                assertTrue(status >= 400, what + " answered " + status + " without a token: " + r.asString());
            }
        }
    }

    private RequestSpecification hostileHeaders(RequestSpecification r) {
        if (random.nextInt(3) == 0) {
            r.header(
                    "Authorization",
                    pick(
                            "",
                            "Bearer",
                            "Bearer ",
                            "Bearer x",
                            "Basic Zm9vOmJhcg==",
                            "bearer " + "z".repeat(4000),
                            "Bearer a.b.c",
                            "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.",
                            "Bearer " + Tokens.ADMIN + " x",
                            "Token " + Tokens.ADMIN));
            if (random.nextInt(4) == 0) {
                r.header("Authorization", "Bearer " + Tokens.ADMIN); // a second one
            }
        }
        if (random.nextInt(4) == 0) {
            r.header("Idempotency-Key", pick("", " ", "k".repeat(300), "\u00e9t\u00e9", "a b", "dup"));
            if (random.nextInt(3) == 0) {
                r.header("Idempotency-Key", "dup-2");
            }
        }
        if (random.nextInt(4) == 0) {
            r.header(
                    pick("ce-specversion", "ce-id", "ce-source", "ce-type"),
                    pick("", "0.3", "x".repeat(500), "dev.warmpool.job.submit"));
        }
        return r;
    }

    private RequestSpecification event(RequestSpecification r) {
        if (random.nextBoolean()) {
            return r.header("ce-specversion", pick("1.0", "0.3", "", "9"))
                    .header("ce-id", pick("e1", "", "x".repeat(300)))
                    .header("ce-source", pick("/fuzz", ""))
                    .header("ce-type", pick("dev.warmpool.job.submit", "dev.warmpool.sweep.submit", "nope", ""))
                    .contentType(pick("application/json", "text/plain", "application/cloudevents+json"))
                    .body(badJob());
        }
        return r.contentType(
                        pick("application/cloudevents+json", "application/cloudevents-batch+json", "application/json"))
                .body(pick(
                        "{}",
                        "[]",
                        "{\"specversion\": \"1.0\"}",
                        "{\"specversion\": \"1.0\", \"id\": \"1\", \"source\": \"/f\", "
                                + "\"type\": \"dev.warmpool.job.submit\", \"data\": " + badJob() + "}",
                        // a structured sweep submit, e.g. {"seed": 1e308}: once a 500
                        "{\"specversion\": \"1.0\", \"id\": \"" + random.nextInt() + "\", \"source\": \"/f\", "
                                + "\"type\": \"dev.warmpool.sweep.submit\", \"datacontenttype\": \"application/json\", \"data\": "
                                + badSweep() + "}",
                        new String(bytes(), StandardCharsets.ISO_8859_1)));
    }

    /** A sweep body that is wrong in at least one way. */
    private String badSweep() {
        return pick(
                "{\"type\": \"" + POOL + "\"}",
                "{\"type\": \"" + POOL + "\", \"space\": "
                        + pick("[]", "{}", "1", "{\"x\": {\"grid\": []}}", "{\"x\": {\"nope\": 1}}") + "}",
                "{\"type\": \"" + POOL + "\", \"space\": {\"x\": " + "{\"grid\": [1]}}, \"parallelism\": "
                        + pick("0", "-1", "\"2\"", "1e308", "99999999999999999999") + "}",
                "{\"type\": \"" + POOL
                        + "\", \"algorithm\": \"random\", \"trials\": 2, \"space\": {\"x\": {\"uniform\": "
                        + pick("[-1e308, 1e308]", "[0, 1e999]", "[\"a\", 1]") + "}}}",
                "{\"type\": \"" + POOL + "\", \"algorithm\": \"random\", \"trials\": " + pick("2", "1e308")
                        + ", \"space\": "
                        + "{\"x\": {\"int\": " + pick("[0, 1e300]", "[-9e18, 9e18]", "[0, 2]") + "}}, \"seed\": "
                        + pick("1e308", "-1e308", "-1", "99999999999999999999", "9007199254740992", "1.5", "\"7\"")
                        + "}",
                badJob());
    }

    private int jobs() {
        return given().get("/jobs?type=" + POOL + "&limit=1000")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getList("id")
                .size();
    }

    /** A job body that is wrong in at least one way. */
    private String badJob() {
        return pick(
                "{\"type\": \"" + POOL + "\", \"timeoutSeconds\": "
                        + pick("0", "-1", "1e308", "99999999999999999999", "\"1\"", "null, \"timeoutSeconds\": 0")
                        + "}",
                "{\"type\": \"" + POOL + "\", \"priority\": " + pick("1001", "-1001", "2147483648", "1.5e10", "[1]")
                        + "}",
                "{\"type\": \"" + POOL + "\", \"maxAttempts\": " + pick("0", "101", "-7", "{}") + "}",
                "{\"type\": \"" + POOL + "\", \"config\": " + pick("[]", "\"x\"", "42", "true") + "}",
                "{\"type\": \"" + POOL + "\", \"args\": "
                        + pick("\"a\"", "[null]", "[[1]]", hugeArray(), "[\"" + "x".repeat(70_000) + "\"]") + "}",
                "{\"type\": \"" + POOL + "\", \"env\": " + pick("[]", "{\"A\": null}", "{\"\": \"v\"}", hugeEnv())
                        + "}",
                "{\"type\": \"" + POOL + "\", \"" + pick("unknown", "__proto__", "$where", "constructor") + "\": 1}",
                "{\"type\": "
                        + pick(
                                "null",
                                "1",
                                "\"\"",
                                "\"../etc\"",
                                "\"UPPER\"",
                                "\"" + "a".repeat(41) + "\"",
                                "\"a b\"",
                                "\"x\\u0000y\"")
                        + "}",
                truncated("{\"type\": \"" + POOL + "\", \"args\": [\"a\", \"b\"], \"config\": {\"lr\": 0.1}}"),
                pick("", "null", "[]", "\"job\"", "{", "}", "{\"type\": \"" + POOL + "\",}", "{'type': 'fuzz'}"),
                "{\"type\": \"" + POOL + "\", \"config\": " + deep(random.nextInt(2000) + 1100) + "}");
    }

    /** A pool body that is wrong in at least one way. */
    private String badPool() {
        return pick(
                "{\"command\": " + pick("[]", "\"true\"", "null", "[1]", "[null]", hugeArray()) + "}",
                "{\"command\": [\"true\"], \"minIdle\": " + pick("-1", "10001", "1e9", "\"one\"") + "}",
                "{\"command\": [\"true\"], \"maxSize\": " + pick("0", "-3", "10001", "99999999999") + "}",
                "{\"command\": [\"true\"], \"minIdle\": 5, \"maxSize\": 2}",
                "{\"command\": [\"true\"], \"idleTimeoutSeconds\": " + pick("0", "-1", "31536001") + "}",
                "{\"command\": [\"true\"], \"maxQueued\": " + pick("0", "1000001") + "}",
                "{\"command\": [\"true\"], \"env\": " + pick("{\"A\": null}", "[1]", hugeEnv()) + "}",
                "{\"command\": [\"true\"], \"extra\": true}",
                truncated("{\"command\": [\"python3\", \"train.py\"], \"minIdle\": 1}"));
    }

    private String name() {
        return pick("fuzz-new", "fuzz-" + random.nextInt(1000));
    }

    private String hostileId() {
        return pick(
                "..%2F..%2Fetc%2Fpasswd",
                "%00",
                "wp:%7Bfuzz%7D:pool",
                POOL + ".%2A",
                "*",
                "%20",
                "a".repeat(random.nextInt(3000) + 1),
                POOL + "." + "z".repeat(33),
                "fuzz.0000000000zzzzzzzz%0d%0aSet-Cookie:x",
                "%E2%80%AE",
                "..",
                "%2e%2e",
                "fuzz.01m8v0b5ey7mqvv24m");
    }

    private String hostileQuery() {
        return pick(
                "limit=-1",
                "limit=1001",
                "limit=99999999999",
                "limit=abc",
                "state=NOPE",
                "state=%00",
                "type=UPPER",
                "type=" + "a".repeat(500),
                "type=..%2F",
                "limit=1e3");
    }

    private String hugeArray() {
        return "[" + String.join(",", Collections.nCopies(1500, "\"a\"")) + "]";
    }

    private String hugeEnv() {
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < 300; i++) {
            b.append(i == 0 ? "" : ",").append("\"K").append(i).append("\": \"v\"");
        }
        return b.append('}').toString();
    }

    private String deep(int depth) {
        return "{\"a\":".repeat(depth) + "1" + "}".repeat(depth);
    }

    private String truncated(String json) {
        return json.substring(0, 1 + random.nextInt(json.length() - 2));
    }

    private byte[] bytes() {
        byte[] b = new byte[random.nextInt(200) + 1];
        random.nextBytes(b);
        return b;
    }

    @SafeVarargs
    private <T> T pick(T... options) {
        return options[random.nextInt(options.length)];
    }
}
