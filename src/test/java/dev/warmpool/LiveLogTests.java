package dev.warmpool;

import static dev.warmpool.testing.Api.awaitEnd;
import static dev.warmpool.testing.Api.awaitIdle;
import static dev.warmpool.testing.Api.job;
import static dev.warmpool.testing.Api.putPool;
import static dev.warmpool.testing.Api.submit;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.testing.Tokens;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A job's output is seen while it runs: its agent sends its lines in batches to the job's event
 * stream, {@code GET /jobs/{id}/logs?follow=true} gives them as text until the job ends and
 * {@code GET /jobs/{id}/events} as Server-Sent Events, resumable by {@code Last-Event-ID}.
 */
@QuarkusTest
class LiveLogTests {
    @TestHTTPResource("/")
    URL base;

    private final HttpClient http = HttpClient.newHttpClient();

    /** A job that prints a line, waits for {@code gate} to exist, reports, prints another and ends. */
    private static Map<String, Object> gated(Path gate) {
        return Map.of(
                "command",
                List.of(
                        "sh",
                        "-c",
                        "echo one; while [ ! -f " + gate + " ]; do sleep 0.02; done; "
                                + "echo 'WARMPOOL_REPORT {\"step\": 1, \"loss\": 0.5}'; echo two"),
                "minIdle",
                1,
                "maxSize",
                1);
    }

    /** The response's lines, read as they come on a thread of their own. */
    private CompletableFuture<Integer> read(String path, Map<String, String> headers, List<String> into) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path.substring(1)))
                .header(
                        "Authorization",
                        Tokens.bearer(Tokens.ADMIN)); // the jobs are the admin's: a viewer may not read their logs
        headers.forEach(b::header);
        return CompletableFuture.supplyAsync(() -> {
            try {
                HttpResponse<InputStream> r = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
                try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                    for (String line = in.readLine(); line != null; line = in.readLine()) {
                        into.add(line);
                    }
                }
                return r.statusCode();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void aFollowedLogShowsLinesWhileTheJobRunsAndEndsWithIt() throws Exception {
        Path gate = Files.createTempDirectory("wp-live").resolve("go");
        putPool("live", gated(gate));
        awaitIdle("live", 1);
        String id = submit(Map.of("type", "live"));
        List<String> lines = new CopyOnWriteArrayList<>();
        CompletableFuture<Integer> followed = read("/jobs/" + id + "/logs?follow=true", Map.of(), lines);
        await().atMost(Duration.ofSeconds(20)).until(() -> lines.contains("one"));
        assertEquals("RUNNING", job(id).getString("state"), "the line came while the job ran");
        Files.createFile(gate);
        assertEquals(200, followed.get(30, TimeUnit.SECONDS));
        assertEquals("SUCCEEDED", job(id).getString("state"));
        assertEquals(List.of("one", "WARMPOOL_REPORT {\"step\": 1, \"loss\": 0.5}", "two"), lines);
        // read again once ended, without following: the same lines, as plain text
        assertEquals(
                "one\nWARMPOOL_REPORT {\"step\": 1, \"loss\": 0.5}\ntwo\n",
                given().get("/jobs/" + id + "/logs")
                        .then()
                        .statusCode(200)
                        .contentType("text/plain")
                        .extract()
                        .asString());
    }

    @Test
    void eventsGiveStateLinesReportsAndTheEndAndResumeAfterLastEventId() throws Exception {
        Path gate = Files.createTempDirectory("wp-live").resolve("go");
        putPool("live-ev", gated(gate));
        awaitIdle("live-ev", 1);
        String id = submit(Map.of("type", "live-ev"));
        List<String> sse = new CopyOnWriteArrayList<>();
        CompletableFuture<Integer> events = read("/jobs/" + id + "/events", Map.of(), sse);
        await().atMost(Duration.ofSeconds(20)).until(() -> sse.contains("data:one"));
        Files.createFile(gate);
        assertEquals(200, events.get(30, TimeUnit.SECONDS));
        List<String> names = sse.stream()
                .filter(l -> l.startsWith("event:"))
                .map(l -> l.substring(6))
                .toList();
        assertEquals("state", names.get(0), sse.toString());
        assertEquals("end", names.get(names.size() - 1), sse.toString());
        assertTrue(names.containsAll(List.of("log", "report")), sse.toString());
        assertTrue(sse.contains("data:{\"step\":1,\"loss\":0.5}"), "the report as JSON: " + sse);
        String end = sse.get(sse.lastIndexOf("event:end") + 1);
        assertTrue(end.contains("\"state\":\"SUCCEEDED\""), end);

        // the id of the first line: resuming after it gives the rest, not the first line again
        String firstId = sse.get(sse.indexOf("data:one") - 2);
        assertTrue(firstId.startsWith("id:"), sse.toString());
        List<String> resumed = new CopyOnWriteArrayList<>();
        assertEquals(
                200,
                read("/jobs/" + id + "/events", Map.of("Last-Event-ID", firstId.substring(3)), resumed)
                        .get(30, TimeUnit.SECONDS));
        List<String> data = resumed.stream()
                .filter(l -> l.startsWith("data:") && !l.startsWith("data:{\"id\""))
                .toList();
        // a report goes by its own call, so it may come before or after the line printed after it
        assertEquals(
                Set.of(
                        "data:WARMPOOL_REPORT {\"step\": 1, \"loss\": 0.5}",
                        "data:{\"step\":1,\"loss\":0.5}",
                        "data:two"),
                Set.copyOf(data),
                resumed.toString());
        assertEquals(3, data.size(), resumed.toString());
    }

    @Test
    void aJobThatPrintsMegabytesIsCappedNotFatal() {
        // 200,000 lines (about 1.3 MB) as fast as sh can print them
        putPool("live-loud", Map.of("command", List.of("sh", "-c", "seq 1 200000"), "minIdle", 1, "maxSize", 1));
        awaitIdle("live-loud", 1);
        String id = submit(Map.of("type", "live-loud"));
        assertEquals("SUCCEEDED", awaitEnd(id).getString("state"));
        String text = given().get("/jobs/" + id + "/logs")
                .then()
                .statusCode(200)
                .extract()
                .asString();
        List<String> lines = new ArrayList<>(List.of(text.split("\n")));
        assertTrue(lines.size() < 25_000, "the log is capped near warmpool.jobs.log-lines: " + lines.size());
        assertTrue(
                lines.contains("200000") || lines.get(lines.size() - 1).startsWith("[warmpool]"),
                "the newest lines are kept, or the log says what was dropped: " + lines.get(lines.size() - 1));
        awaitIdle("live-loud", 1); // the processor is warm again for the next job
    }

    @Test
    void aSweepsEventsGiveItThenEachTrialAsItEndsThenItsEnd() throws Exception {
        putPool("live-sweep", Map.of("command", List.of("sh", "-c", "sleep 0.2"), "minIdle", 1, "maxSize", 1));
        awaitIdle("live-sweep", 1);
        String sid = given().contentType("application/json")
                .body(Map.of(
                        "type", "live-sweep", "parallelism", 1, "space", Map.of("x", Map.of("grid", List.of(1, 2, 3)))))
                .post("/sweeps")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getString("id");
        List<String> sse = new CopyOnWriteArrayList<>();
        assertEquals(200, read("/sweeps/" + sid + "/events", Map.of(), sse).get(60, TimeUnit.SECONDS));
        List<String> names = sse.stream()
                .filter(l -> l.startsWith("event:"))
                .map(l -> l.substring(6))
                .toList();
        assertEquals("sweep", names.get(0), sse.toString());
        assertEquals("end", names.get(names.size() - 1), sse.toString());
        JsonPath first = new JsonPath(sse.get(sse.indexOf("event:sweep") + 1).substring(5));
        long endedBefore = first.getList("trials.state").stream()
                .filter(st -> "SUCCEEDED".equals(st))
                .count();
        assertEquals(
                3,
                endedBefore + names.stream().filter("trial"::equals).count(),
                "every trial once: in the first sweep or as it ended: " + names);
        JsonPath end = new JsonPath(sse.get(sse.indexOf("event:end") + 1).substring(5));
        assertEquals("SUCCEEDED", end.getString("state"));
        assertEquals(3, end.getInt("progress.done"));
        given().get("/sweeps/nosuch.0123456789ab/events")
                .then()
                .statusCode(404)
                .contentType("application/problem+json");
    }

    @Test
    void badFollowsAreClearProblems() {
        given().get("/jobs/nosuch.0123456789ab/events").then().statusCode(404).contentType("application/problem+json");
        given().get("/jobs/nosuch.0123456789ab/logs").then().statusCode(404).contentType("application/problem+json");
        given().header("Last-Event-ID", "yesterday")
                .get("/jobs/nosuch.0123456789ab/events")
                .then()
                .statusCode(400)
                .contentType("application/problem+json");
        given().get("/jobs/nosuch.0123456789ab/logs?follow=maybe")
                .then()
                .statusCode(400)
                .contentType("application/problem+json");
        given().noFilters().get("/jobs/nosuch.0123456789ab/logs").then().statusCode(401);
    }
}
