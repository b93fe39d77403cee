package dev.warmpool.store;

import static dev.warmpool.testing.Api.awaitIdle;
import static dev.warmpool.testing.Api.putPool;
import static dev.warmpool.testing.Api.submit;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.pool.Job;
import dev.warmpool.protocol.JobState;
import dev.warmpool.protocol.KeySchema;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.redis.client.RedisAPI;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A waited-for job wakes on its end message: the script that ends a job publishes its id, the
 * manager's one subscription completes its waiters; submit-and-wait is one request.
 */
@QuarkusTest
class JobEndsTests {
    @Inject
    JobEnds ends;

    @Inject
    RedisAPI redis;

    @Test
    void aPublishedEndWakesItsWaitersAndLeavesNoneBehind() {
        await().atMost(Duration.ofSeconds(30)).until(ends::live);
        CompletableFuture<Job> first = ends.watch("ends-test.1");
        CompletableFuture<Job> second = ends.watch("ends-test.1");
        CompletableFuture<Job> other = ends.watch("ends-test.2");
        redis.publish(KeySchema.ended("ends-test"), "ends-test.1").await().atMost(Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(10)).until(() -> first.isDone() && second.isDone());
        assertFalse(other.isDone(), "another job's waiter sleeps on");
        ends.forget("ends-test.2", other);
    }

    @Test
    void anEndMessageHandsItsWaitersTheEndedJobItCarries() {
        await().atMost(Duration.ofSeconds(30)).until(ends::live);
        CompletableFuture<Job> carried = ends.watch("ends-test.3");
        CompletableFuture<Job> bare = ends.watch("ends-test.4");
        CompletableFuture<Job> broken = ends.watch("ends-test.5");
        String channel = KeySchema.ended("ends-test");
        redis.publish(
                        channel,
                        "ends-test.3\n[\"id\",\"ends-test.3\",\"type\",\"ends-test\",\"state\",\"FAILED\","
                                + "\"error\",\"exit 3\"]")
                .await()
                .atMost(Duration.ofSeconds(5));
        redis.publish(channel, "ends-test.4").await().atMost(Duration.ofSeconds(5)); // too large to carry: the id alone
        redis.publish(channel, "ends-test.5\n{not a job").await().atMost(Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(10)).until(() -> carried.isDone() && bare.isDone() && broken.isDone());
        assertEquals(JobState.FAILED, carried.join().state());
        assertEquals("exit 3", carried.join().error());
        assertNull(bare.join(), "no job: its waiter reads it");
        assertNull(broken.join(), "no job: its waiter reads it");
    }

    @Test
    void submitAndWaitIsOneRequestAndAnswers200WithTheEndedJob() {
        putPool("ends", Map.of("command", List.of("sh", "-c", "sleep 0.3"), "minIdle", 1, "maxSize", 1));
        awaitIdle("ends", 1);
        JsonPath job = given().contentType("application/json")
                .body(Map.of("type", "ends"))
                .post("/jobs?wait=30")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
        assertEquals("SUCCEEDED", job.getString("state"));
        assertTrue(job.getString("finishedAt") != null);
        // a wait that runs out answers 202 with the job as it is, and leaves no waiter behind
        putPool("ends", Map.of("command", List.of("sh", "-c", "sleep 5"), "minIdle", 1, "maxSize", 1));
        JsonPath running = given().contentType("application/json")
                .body(Map.of("type", "ends"))
                .post("/jobs?wait=1")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath();
        assertFalse(List.of("SUCCEEDED", "FAILED").contains(running.getString("state")));
        await().atMost(Duration.ofSeconds(10)).until(() -> ends.watched() == 0);
        given().delete("/jobs/" + running.getString("id")).then().statusCode(200);
    }

    @Test
    void aBadWaitIsRefusedBeforeAnythingIsStored() {
        putPool("ends-bad", Map.of("command", List.of("true"), "minIdle", 0, "maxSize", 1));
        for (String wait : List.of("-1", "soon")) {
            given().contentType("application/json")
                    .body(Map.of("type", "ends-bad"))
                    .post("/jobs?wait=" + wait)
                    .then()
                    .statusCode(400)
                    .contentType("application/problem+json");
        }
        assertEquals(
                0,
                given().get("/jobs?type=ends-bad")
                        .then()
                        .statusCode(200)
                        .extract()
                        .jsonPath()
                        .getList("$")
                        .size());
    }

    @Test
    void aWaitedJobEndsWithinItsWaitWhenAnotherProcessEndsIt() {
        putPool("ends-cancel", Map.of("command", List.of("sh", "-c", "sleep 30"), "minIdle", 1, "maxSize", 1));
        awaitIdle("ends-cancel", 1);
        String id = submit(Map.of("type", "ends-cancel"));
        CompletableFuture<JsonPath> waited = CompletableFuture.supplyAsync(() -> given().get("/jobs/" + id + "?wait=60")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath());
        await().atMost(Duration.ofSeconds(10)).until(() -> ends.watched() > 0); // the request waits
        given().delete("/jobs/" + id).then().statusCode(200);
        assertEquals("CANCELLED", waited.join().getString("state"));
    }
}
