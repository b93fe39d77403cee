package dev.warmpool.testing;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;

import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.hamcrest.Matchers;

/** Calls of the HTTP API that tests share, and the conditions they wait on. */
public final class Api {
    static {
        Tokens.asAdminByDefault();
    }

    private Api() {}

    public static JsonPath putPool(String type, Map<String, Object> body) {
        return given().contentType(ContentType.JSON)
                .body(body)
                .put("/pools/" + type)
                .then()
                .statusCode(Matchers.anyOf(Matchers.is(200), Matchers.is(201)))
                .extract()
                .jsonPath();
    }

    public static JsonPath pool(String type) {
        return given().get("/pools/" + type).then().statusCode(200).extract().jsonPath();
    }

    public static String submit(Map<String, Object> body) {
        return given().contentType(ContentType.JSON)
                .body(body)
                .post("/jobs")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getString("id");
    }

    public static JsonPath job(String id) {
        return given().get("/jobs/" + id).then().statusCode(200).extract().jsonPath();
    }

    /** Waits (server side, ?wait=) until the job has ended, and returns it. */
    public static JsonPath awaitEnd(String id) {
        await().atMost(Duration.ofSeconds(60))
                .until(() -> given().get("/jobs/" + id + "?wait=10")
                        .then()
                        .statusCode(200)
                        .extract()
                        .jsonPath()
                        .getBoolean("ended"));
        return job(id);
    }

    public static void awaitIdle(String type, int idle) {
        await().atMost(Duration.ofSeconds(60)).until(() -> pool(type).getInt("status.idle") >= idle);
    }

    public static long millis(JsonPath job, String field) {
        return Instant.parse(job.getString(field)).toEpochMilli();
    }
}
