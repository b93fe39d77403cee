package dev.warmpool.service;

import static dev.warmpool.testing.Api.awaitIdle;
import static dev.warmpool.testing.Api.putPool;
import static dev.warmpool.testing.Api.submit;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.warmpool.store.JobEnds;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A {@code ?wait=} answered from the job's end message says what reading the job again says,
 * field for field, whatever the end (SUCCEEDED with metrics and a log tail, FAILED, CANCELLED),
 * on both waits (POST and GET); a job too large for its end message is read again.
 */
@QuarkusTest
class JobWaitTests {
    @Inject
    JobEnds ends;

    @Test
    void aSucceededJobWaitedForIsTheJobReadAgain() {
        pool("wait-ok", "printf '{\"loss\": 0.5, \"acc\": 0.25}' > \"$WARMPOOL_RESULT\"; echo step 1; echo done");
        Map<String, Object> waited = postAndWait("wait-ok", Map.of("lr", 0.1, "name", "a/b \"c\""));
        assertEquals("SUCCEEDED", waited.get("state"));
        assertNotNull(waited.get("result"), "its metrics and log tail");
        assertEquals(readAgain(waited), waited);
        Map<String, Object> gotten = getAndWait(submit(Map.of("type", "wait-ok", "args", List.of("x"))));
        assertEquals("SUCCEEDED", gotten.get("state"));
        assertEquals(readAgain(gotten), gotten);
    }

    @Test
    void aFailedJobWaitedForIsTheJobReadAgain() {
        pool("wait-fail", "echo oops >&2; exit 3");
        Map<String, Object> waited = postAndWait("wait-fail", Map.of());
        assertEquals("FAILED", waited.get("state"));
        assertNotNull(waited.get("error"));
        assertEquals(readAgain(waited), waited);
        Map<String, Object> gotten = getAndWait(submit(Map.of("type", "wait-fail")));
        assertEquals("FAILED", gotten.get("state"));
        assertEquals(readAgain(gotten), gotten);
    }

    @Test
    void aCancelledJobWaitedForIsTheJobReadAgain() {
        pool("wait-cancel", "sleep 30");
        String id = submit(Map.of("type", "wait-cancel"));
        CompletableFuture<Map<String, Object>> waited = CompletableFuture.supplyAsync(() -> getAndWait(id));
        await().atMost(Duration.ofSeconds(10)).until(() -> ends.watched() > 0); // the request waits
        given().delete("/jobs/" + id).then().statusCode(200);
        Map<String, Object> job = waited.join();
        assertEquals("CANCELLED", job.get("state"));
        // the answer is the job as the cancel ended it; the killed process's exit code and log tail
        // (result) come with the agent's report, which may land before the test reads the job again
        Map<String, Object> again = new HashMap<>(readAgain(job));
        if (!job.containsKey("result")) {
            again.remove("result");
        }
        assertEquals(again, job);
    }

    @Test
    void aJobTooLargeForItsEndMessageIsReadAgainAndAnswersAlike() {
        pool("wait-large", "true");
        Map<String, Object> waited = postAndWait("wait-large", Map.of("blob", "x".repeat(20_000)));
        assertEquals("SUCCEEDED", waited.get("state"));
        assertEquals(20_000, ((String) ((Map<?, ?>) waited.get("config")).get("blob")).length());
        assertEquals(readAgain(waited), waited);
        await().atMost(Duration.ofSeconds(10)).until(() -> ends.watched() == 0); // no waiter left behind
    }

    private static void pool(String type, String script) {
        putPool(type, Map.of("command", List.of("sh", "-c", script), "minIdle", 1, "maxSize", 1));
        awaitIdle(type, 1);
    }

    private static Map<String, Object> postAndWait(String type, Map<String, Object> config) {
        return given().contentType(ContentType.JSON)
                .body(Map.of("type", type, "config", config))
                .post("/jobs?wait=60")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getMap("$");
    }

    private static Map<String, Object> getAndWait(String id) {
        return given().get("/jobs/" + id + "?wait=60")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getMap("$");
    }

    private static Map<String, Object> readAgain(Map<String, Object> job) {
        return given().get("/jobs/" + job.get("id"))
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getMap("$");
    }
}
