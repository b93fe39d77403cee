package dev.warmpool;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.warmpool.testing.Api;
import dev.warmpool.testing.Tokens;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A persistent worker keeps its interpreter warm for one tenant at a time: a job of another tenant
 * gets a fresh worker process, so nothing one tenant's job left in it (globals, modules, files)
 * reaches another's; within one tenant its state carries on, which is what makes it warm.
 */
@QuarkusTest
class PersistentWorkerTenantTests {
    static final String TYPE = "tenant-worker";

    @AfterEach
    void deletePool() {
        given().header("Authorization", Tokens.bearer(Tokens.ADMIN)).delete("/pools/" + TYPE);
    }

    static JsonPath run(String token, String who) {
        String id = given().header("Authorization", Tokens.bearer(token))
                .contentType(ContentType.JSON)
                .body(Map.of("type", TYPE, "config", Map.of("who", who)))
                .post("/jobs")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getString("id");
        JsonPath job = Api.awaitEnd(id);
        assertEquals("SUCCEEDED", job.getString("state"), job.prettify());
        return job;
    }

    @Test
    void aJobOfAnotherTenantGetsAFreshWorkerAndOneOfTheSameTenantTheWarmOne() {
        Api.putPool(
                TYPE,
                Map.of(
                        "command",
                        List.of(
                                "python3",
                                Path.of("src/test/resources/workers/tenant_memory.py")
                                        .toAbsolutePath()
                                        .toString()),
                        "worker",
                        "persistent",
                        "minIdle",
                        1,
                        "maxSize",
                        1,
                        "env",
                        Map.of(
                                "PYTHONPATH",
                                Path.of("clients/python").toAbsolutePath().toString())));
        JsonPath alice1 = run(Tokens.ALICE, "alice");
        JsonPath alice2 = run(Tokens.ALICE, "alice");
        assertEquals(alice1.getLong("result.metrics.pid"), alice2.getLong("result.metrics.pid"), "warm for alice");
        assertEquals(1, alice2.getInt("result.metrics.before"), "alice's second job finds her first one's state");
        JsonPath bob = run(Tokens.BOB, "bob");
        assertNotEquals(alice1.getLong("result.metrics.pid"), bob.getLong("result.metrics.pid"), "bob's own worker");
        assertEquals(0, bob.getInt("result.metrics.before"), "bob finds nothing of alice's jobs");
        JsonPath alice3 = run(Tokens.ALICE, "alice");
        assertNotEquals(bob.getLong("result.metrics.pid"), alice3.getLong("result.metrics.pid"));
        assertEquals(0, alice3.getInt("result.metrics.before"), "nor alice anything of bob's");
    }
}
