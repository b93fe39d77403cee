package dev.warmpool;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.testing.Api;
import dev.warmpool.testing.Tokens;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A pool that cannot start processors says so: a command that is not there is refused at PUT; a
 * persistent worker that exits at once is a start error (never an idle processor), and a wait on a job of that pool
 * (POST and GET {@code ?wait=}) ends with a 503 {@code pool-cannot-start} that says why, well
 * before its deadline, while the job stays queued.
 */
@QuarkusTest
class PoolStartErrorTests {
    static {
        Tokens.asAdminByDefault(); // its first call may come before any class that sets it
    }

    static final String TYPE = "no-start";
    static final String WHY = "ModuleNotFoundError: No module named 'torhc'";

    @AfterEach
    void deletePool() {
        given().delete("/pools/" + TYPE);
    }

    @Test
    void aWaiterLearnsWhyThePoolCannotStartProcessorsAndTheJobStaysQueued() {
        Api.putPool(
                TYPE,
                Map.of(
                        "command",
                        List.of("sh", "-c", "echo \"" + WHY + "\" >&2; exit 1"),
                        "worker",
                        "persistent",
                        "minIdle",
                        0,
                        "maxSize",
                        1));
        long t0 = System.nanoTime();
        JsonPath problem = given().contentType(ContentType.JSON)
                .body(Map.of("type", TYPE))
                .post("/jobs?wait=120")
                .then()
                .statusCode(503)
                .contentType("application/problem+json")
                .extract()
                .jsonPath();
        long waitedMs = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(waitedMs < 60_000, "answered long before its deadline: " + waitedMs + " ms");
        assertTrue(problem.getString("type").endsWith("/pool-cannot-start"), problem.prettify());
        assertTrue(problem.getString("detail").contains(WHY), problem.prettify());
        assertTrue(problem.getString("startError.reason").contains("exited at once (exit 1)"), problem.prettify());
        assertEquals(TYPE, problem.getString("pool"));
        String id = problem.getString("job");
        assertEquals("QUEUED", Api.job(id).getString("state"), "the job waits for a processor that can start");

        JsonPath again = given().get("/jobs/" + id + "?wait=120")
                .then()
                .statusCode(503)
                .extract()
                .jsonPath();
        assertEquals(id, again.getString("job"));
        assertTrue(again.getString("detail").contains(WHY), again.prettify());

        JsonPath pool = Api.pool(TYPE);
        assertTrue(pool.getString("startError.reason").contains(WHY), pool.prettify());
        assertEquals(0, pool.getInt("status.idle"), "no processor ever served: " + pool.prettify());
        assertEquals(0, pool.getInt("status.busy"), pool.prettify());
    }

    @Test
    void aCommandThatIsNotThereIsRefusedAtPutNotLeftIdle() {
        JsonPath problem = given().contentType(ContentType.JSON)
                .body(Map.of("command", List.of("no-such-program-wp", "train.py")))
                .put("/pools/" + TYPE)
                .then()
                .statusCode(400)
                .extract()
                .jsonPath();
        assertEquals("command", problem.getString("field"));
        assertTrue(
                problem.getString("detail").contains("'no-such-program-wp' is not on the jobs' PATH"),
                problem.prettify());
        given().get("/pools/" + TYPE).then().statusCode(404);
    }

    @Test
    void aWaitOnAPoolThatStartsIsAnsweredWithTheEndedJob() {
        Api.putPool(TYPE, Map.of("command", List.of("sh", "-c", "true"), "minIdle", 0, "maxSize", 1));
        JsonPath job = given().contentType(ContentType.JSON)
                .body(Map.of("type", TYPE))
                .post("/jobs?wait=120")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
        assertEquals("SUCCEEDED", job.getString("state"));
        assertNull(Api.pool(TYPE).getString("startError"));
    }
}
