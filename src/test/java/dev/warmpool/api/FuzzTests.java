package dev.warmpool.api;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * 1,200 malformed or hostile requests from a seeded generator: no 5xx, every refusal is
 * problem+json, and nothing is stored (the pools and the fuzz pool's jobs are as before).
 */
@QuarkusTest
class FuzzTests {
    static {
        dev.warmpool.Tokens.asAdminByDefault();
    }

    static final String POOL = "fuzz";
    final Random random = new Random(20261202);

    @Test
    void survivesHostileRequestsWithoutAServerErrorOrAStoredByte() {
        Api.putPool(POOL, Map.of("command", List.of("true"), "minIdle", 0, "maxSize", 1));
        List<String> poolsBefore = given().get("/pools").then().extract().jsonPath().getList("type");
        int jobsBefore = jobs();
        List<Supplier<Response>> requests = List.of(
                () -> given().contentType("application/json").body(badJob()).post("/jobs"),
                () -> given().contentType("application/json").body(badPool()).put("/pools/" + name()),
                () -> given().contentType("application/json").body(badPool()).put("/pools/" + POOL),
                () -> given().urlEncodingEnabled(false).get("/jobs/" + hostileId()),
                () -> given().urlEncodingEnabled(false).delete("/jobs/" + hostileId()),
                () -> given().urlEncodingEnabled(false).get("/pools/" + hostileId()),
                () -> given().urlEncodingEnabled(false).get("/jobs?" + hostileQuery()),
                () -> given().contentType(pick("text/plain", "application/xml", "application/json; charset=latin1", "*/*"))
                        .body(bytes()).post("/jobs"));
        for (int i = 0; i < 1200; i++) {
            Response r = requests.get(random.nextInt(requests.size())).get();
            int status = r.statusCode();
            assertTrue(status < 500, "request " + i + " got " + status + ": " + r.asString());
            if (status >= 400) {
                assertTrue(r.contentType().startsWith("application/problem+json"), "request " + i + ": " + r.contentType());
                assertNotNull(r.jsonPath().getString("detail"));
                assertEquals(status, r.jsonPath().getInt("status"));
            }
        }
        assertEquals(poolsBefore, given().get("/pools").then().extract().jsonPath().getList("type"));
        assertEquals(jobsBefore, jobs());
    }

    private int jobs() {
        return given().get("/jobs?type=" + POOL + "&limit=1000").then().statusCode(200).extract().jsonPath().getList("id").size();
    }

    /** A job body that is wrong in at least one way. */
    private String badJob() {
        return pick(
                "{\"type\": \"" + POOL + "\", \"timeoutSeconds\": " + pick("0", "-1", "1e308", "99999999999999999999", "\"1\"", "null, \"timeoutSeconds\": 0") + "}",
                "{\"type\": \"" + POOL + "\", \"priority\": " + pick("1001", "-1001", "2147483648", "1.5e10", "[1]") + "}",
                "{\"type\": \"" + POOL + "\", \"maxAttempts\": " + pick("0", "101", "-7", "{}") + "}",
                "{\"type\": \"" + POOL + "\", \"config\": " + pick("[]", "\"x\"", "42", "true") + "}",
                "{\"type\": \"" + POOL + "\", \"args\": " + pick("\"a\"", "[null]", "[[1]]", hugeArray(), "[\"" + "x".repeat(70_000) + "\"]") + "}",
                "{\"type\": \"" + POOL + "\", \"env\": " + pick("[]", "{\"A\": null}", "{\"\": \"v\"}", hugeEnv()) + "}",
                "{\"type\": \"" + POOL + "\", \"" + pick("unknown", "__proto__", "$where", "constructor") + "\": 1}",
                "{\"type\": " + pick("null", "1", "\"\"", "\"../etc\"", "\"UPPER\"", "\"" + "a".repeat(41) + "\"", "\"a b\"", "\"x\\u0000y\"") + "}",
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
        return pick("..%2F..%2Fetc%2Fpasswd", "%00", "wp:%7Bfuzz%7D:pool", POOL + ".%2A", "*", "%20",
                "a".repeat(random.nextInt(3000) + 1), POOL + "." + "z".repeat(33), "fuzz.0000000000zzzzzzzz%0d%0aSet-Cookie:x",
                "%E2%80%AE", "..", "%2e%2e", "fuzz.01m8v0b5ey7mqvv24m");
    }

    private String hostileQuery() {
        return pick("limit=-1", "limit=1001", "limit=99999999999", "limit=abc", "state=NOPE", "state=%00",
                "type=UPPER", "type=" + "a".repeat(500), "type=..%2F", "limit=1e3");
    }

    private String hugeArray() {
        return "[" + String.join(",", java.util.Collections.nCopies(1500, "\"a\"")) + "]";
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
