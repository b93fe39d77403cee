package dev.warmpool.events;

import static dev.warmpool.testing.Api.awaitEnd;
import static dev.warmpool.testing.Api.pool;
import static dev.warmpool.testing.Api.putPool;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.testing.Tokens;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** CloudEvents in (Knative sink at POST /) and out (K_SINK), in-process and against the packaged app. */
public abstract class EventScenarios {
    static {
        Tokens.asAdminByDefault();
    }

    /** The periodic reconciler is slowed to once an hour, so a ping is what reconciles. */
    public static class QuietReconciler implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("warmpool.reconcile.interval", "1h");
        }
    }

    static RequestSpecification binary(String type, String id) {
        return given().header("ce-specversion", "1.0")
                .header("ce-id", id)
                .header("ce-source", "/tests/events")
                .header("ce-type", type)
                .contentType("application/json");
    }

    static Map<String, Object> spec(int minIdle, int idleTimeoutSeconds) {
        return Map.of(
                "command",
                List.of("sh", "-c", "printf '{\"acc\": 0.9}' > $WARMPOOL_RESULT"),
                "minIdle",
                minIdle,
                "maxSize",
                1,
                "idleTimeoutSeconds",
                idleTimeoutSeconds);
    }

    static int jobsOf(String type) {
        return given().get("/jobs?type=" + type + "&limit=1000")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getList("id")
                .size();
    }

    static List<Map<String, Object>> sink() {
        return given().get(System.getProperty("wptest.sink") + "received")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getList("$");
    }

    static Map<String, Object> awaitSinkEvent(String jobId) {
        await().atMost(Duration.ofSeconds(60))
                .until(() -> sink().stream().anyMatch(e -> jobId.equals(e.get("ceSubject"))));
        return sink().stream()
                .filter(e -> jobId.equals(e.get("ceSubject")))
                .findFirst()
                .orElseThrow();
    }

    @Test
    public void submitsAJobFromABinaryModeEventAndRepliesWithTheAcceptedJob() {
        putPool("ev", spec(1, 300));
        Response r = binary(EventTypes.JOB_SUBMIT, UUID.randomUUID().toString())
                .body("{\"type\": \"ev\", \"args\": [\"x\"]}")
                .post("/");
        r.then()
                .statusCode(202)
                .header("ce-type", EventTypes.JOB_ACCEPTED)
                .header("ce-specversion", "1.0")
                .header("ce-source", notNullValue())
                .body("id", startsWith("ev."));
        String id = r.jsonPath().getString("id");
        assertEquals(id, r.header("ce-subject"));
        assertEquals("SUCCEEDED", awaitEnd(id).getString("state"));
    }

    @Test
    public void submitsAJobFromAStructuredModeEvent() {
        putPool("ev", spec(1, 300));
        String event =
                "{\"specversion\": \"1.0\", \"id\": \"" + UUID.randomUUID() + "\", \"source\": \"/tests/events\", "
                        + "\"type\": \"dev.warmpool.job.submit\", \"datacontenttype\": \"application/json\", "
                        + "\"data\": {\"type\": \"ev\", \"config\": {\"lr\": 0.1}}}";
        String id = given().contentType("application/cloudevents+json")
                .body(event)
                .post("/")
                .then()
                .statusCode(202)
                .header("ce-type", EventTypes.JOB_ACCEPTED)
                .extract()
                .jsonPath()
                .getString("id");
        JsonPath job = awaitEnd(id);
        assertEquals("SUCCEEDED", job.getString("state"));
        assertEquals(0.1f, job.getFloat("config.lr"));
    }

    @Test
    public void submitsASweepFromAnEventOnceHoweverOftenItIsDelivered() {
        putPool("ev", spec(1, 300));
        String eventId = UUID.randomUUID().toString();
        String body = "{\"type\": \"ev\", \"space\": {\"lr\": {\"grid\": [0.1, 0.2]}}, \"parallelism\": 1, "
                + "\"objective\": {\"metric\": \"acc\", \"goal\": \"maximize\"}}";
        Response r = binary(EventTypes.SWEEP_SUBMIT, eventId).body(body).post("/");
        r.then().statusCode(202).header("ce-type", EventTypes.SWEEP_ACCEPTED).body("progress.total", equalTo(2));
        String id = r.jsonPath().getString("id");
        assertEquals(id, r.header("ce-subject"));
        assertEquals(
                id,
                binary(EventTypes.SWEEP_SUBMIT, eventId)
                        .body(body)
                        .post("/")
                        .then()
                        .statusCode(202)
                        .extract()
                        .jsonPath()
                        .getString("id"));
        await().atMost(Duration.ofSeconds(60))
                .until(() -> "SUCCEEDED"
                        .equals(given().get("/sweeps/" + id)
                                .then()
                                .statusCode(200)
                                .extract()
                                .jsonPath()
                                .getString("state")));
        JsonPath s = given().get("/sweeps/" + id).then().extract().jsonPath();
        assertEquals(2, s.getInt("progress.succeeded"));
        assertEquals(0.9f, s.getFloat("best.value"));
        binary(EventTypes.SWEEP_SUBMIT, UUID.randomUUID().toString())
                .body("{\"type\": \"ev\"}")
                .post("/")
                .then()
                .statusCode(422)
                .body("type", equalTo("https://warmpool.dev/problems/invalid-event-data"))
                .body("field", equalTo("space"));
    }

    @Test
    public void answersARedeliveredEventWithTheSameJob() {
        putPool("ev", spec(1, 300));
        String eventId = UUID.randomUUID().toString();
        int before = jobsOf("ev");
        String first = binary(EventTypes.JOB_SUBMIT, eventId)
                .body("{\"type\": \"ev\"}")
                .post("/")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getString("id");
        String again = binary(EventTypes.JOB_SUBMIT, eventId)
                .body("{\"type\": \"ev\"}")
                .post("/")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getString("id");
        assertEquals(first, again);
        assertEquals(before + 1, jobsOf("ev"));
    }

    @Test
    public void aPingRetiresAnIdleProcessorPastItsTimeout() {
        putPool("ev-ping", spec(0, 1));
        String id = given().contentType("application/json")
                .body(Map.of("type", "ev-ping"))
                .post("/jobs")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getString("id");
        awaitEnd(id);
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonPath p = pool("ev-ping");
            return p.getInt("status.idle") == 1
                    && Instant.parse(p.getString("processors[0].since"))
                            .isBefore(Instant.now().minusMillis(1500));
        });
        binary(EventTypes.PING, UUID.randomUUID().toString())
                .body("{}")
                .post("/")
                .then()
                .statusCode(200)
                .body("ran", equalTo(true))
                .body("retired", equalTo(1));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> pool("ev-ping").getList("processors").isEmpty());
    }

    @Test
    public void sendsAFinishedEventToTheSink() {
        putPool("ev", spec(1, 300));
        String id = given().contentType("application/json")
                .body(Map.of("type", "ev"))
                .post("/jobs")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getString("id");
        Map<String, Object> e = awaitSinkEvent(id);
        assertEquals(EventTypes.JOB_FINISHED, e.get("ceType"));
        @SuppressWarnings("unchecked")
        Map<String, Object> data = (Map<String, Object>) e.get("data");
        assertEquals("SUCCEEDED", data.get("state"));
        assertEquals("ev", data.get("type"));
        assertEquals(0.9f, ((Number) ((Map<?, ?>) data.get("metrics")).get("acc")).floatValue());
    }

    @Test
    public void retriesAFinishedEventUntilAFailingSinkTakesIt() {
        putPool("ev-flaky", spec(1, 300));
        String id = given().contentType("application/json")
                .body(Map.of("type", "ev-flaky"))
                .post("/jobs")
                .then()
                .statusCode(202)
                .extract()
                .jsonPath()
                .getString("id");
        Map<String, Object> e = awaitSinkEvent(id);
        assertTrue(((Number) e.get("attempts")).intValue() >= 3, "delivered at attempt " + e.get("attempts"));
        // and the processor took the next job meanwhile
        assertEquals(
                "SUCCEEDED",
                awaitEnd(given().contentType("application/json")
                                .body(Map.of("type", "ev-flaky"))
                                .post("/jobs")
                                .then()
                                .statusCode(202)
                                .extract()
                                .jsonPath()
                                .getString("id"))
                        .getString("state"));
    }

    @Test
    public void refusesBadEventsAndStoresNothing() {
        putPool("ev", spec(1, 300));
        int before = jobsOf("ev");
        given().header("ce-specversion", "1.0")
                .header("ce-source", "/t")
                .header("ce-type", EventTypes.JOB_SUBMIT)
                .contentType("application/json")
                .body("{\"type\": \"ev\"}")
                .post("/")
                .then()
                .statusCode(400)
                .contentType("application/problem+json")
                .body("type", equalTo("https://warmpool.dev/problems/invalid-cloudevent"));
        given().contentType("application/json")
                .body("{\"type\": \"ev\"}")
                .post("/")
                .then()
                .statusCode(400)
                .contentType("application/problem+json");
        binary("com.example.unknown", UUID.randomUUID().toString())
                .body("{}")
                .post("/")
                .then()
                .statusCode(400)
                .body("type", equalTo("https://warmpool.dev/problems/unknown-event-type"))
                .body("acceptedTypes", hasItem(EventTypes.JOB_SUBMIT));
        binary(EventTypes.JOB_SUBMIT, UUID.randomUUID().toString())
                .body("{\"type\": \"ev\", \"timeoutSeconds\": 0}")
                .post("/")
                .then()
                .statusCode(422)
                .contentType("application/problem+json")
                .body("field", equalTo("timeoutSeconds"));
        binary(EventTypes.JOB_SUBMIT, UUID.randomUUID().toString())
                .body("{\"type\": ")
                .post("/")
                .then()
                .statusCode(422)
                .body("type", equalTo("https://warmpool.dev/problems/invalid-event-data"));
        binary(EventTypes.JOB_SUBMIT, UUID.randomUUID().toString())
                .body("{\"type\": \"ev\", \"config\": [1]}")
                .post("/")
                .then()
                .statusCode(422)
                .body("field", equalTo("config"));
        assertEquals(before, jobsOf("ev"));
    }

    /**
     * Headers as a fuzzer sends them (empty, blank, garbage, media-type fragments, very long,
     * non-ASCII in UTF-8 and in Latin-1, repeated, missing), written as raw bytes so that no client
     * library cleans them first: every answer is a 4xx (or a success), never a 5xx, and every 4xx
     * the API gives is problem+json. Seeded, so a failure names a request that can be sent again.
     */
    @Test
    public void anyHeaderValueHoweverMalformedGetsA4xxProblemNeverA5xx() throws Exception {
        Random random = new Random(39);
        List<String> names = List.of(
                "content-type",
                "ce-specversion",
                "ce-id",
                "ce-source",
                "ce-type",
                "ce-time",
                "ce-subject",
                "ce-dataschema",
                "ce-datacontenttype",
                "ce-x-extension");
        for (int i = 0; i < 400; i++) {
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("ce-specversion", "1.0");
            headers.put("ce-id", "fuzz-" + i);
            headers.put("ce-source", "/tests/fuzz");
            // one in eight a ping: a valid ping waits for a reconcile pass, at most one a second (Pings), so
            // half of 400 took a minute; the fuzzed headers are the same for both types
            headers.put("ce-type", random.nextInt(8) == 0 ? EventTypes.PING : EventTypes.JOB_SUBMIT);
            headers.put("content-type", "application/json");
            for (int n = 1 + random.nextInt(3); n > 0; n--) {
                String name = names.get(random.nextInt(names.size()));
                String value = Fuzz.value(random);
                if (value == null) {
                    headers.remove(name);
                } else {
                    headers.put(name, value);
                }
            }
            byte[] body = random.nextInt(4) == 0
                    ? Fuzz.ascii(random, random.nextInt(40)).getBytes(StandardCharsets.ISO_8859_1)
                    : "{\"type\": \"ev-fuzz-none\"}".getBytes(StandardCharsets.UTF_8);
            Fuzz.Answer a = Fuzz.post(headers, body);
            String request = "request " + i + " " + Fuzz.shown(headers);
            assertTrue(a.status() >= 200 && a.status() < 500, request + " got " + a);
            if (a.status() >= 400 && a.status() != 431) {
                assertEquals("application/problem+json", a.contentType(), request + " got " + a);
            }
        }
    }

    /** Raw HTTP/1.1 requests to the sink, and the values a fuzzer puts in their headers. */
    static final class Fuzz {
        record Answer(int status, String contentType, String head) {}

        private static final String[] SHAPES = {
            "",
            " ",
            "\t",
            ";",
            "/",
            "application/",
            "/json",
            "application/json;",
            "application/json; charset=",
            "application/json; charset=\"",
            "application/json; charset=nope",
            "application/cloudevents+json",
            "application/cloudevents-batch+json",
            "a/b/c",
            "*/*",
            "text/plain; q=x; =",
            "\"\"",
            "1.0",
            "0.3",
            "2.0",
            "not a uri",
            "http://[::1",
            "2026-13-45T99:99:99Z",
        };

        /** The headers for a failure's message, long values cut. */
        static String shown(Map<String, String> headers) {
            StringBuilder s = new StringBuilder();
            headers.forEach((k, v) -> s.append(k)
                    .append(": '")
                    .append(v.length() > 60 ? v.substring(0, 60) + "...(" + v.length() + " chars)" : v)
                    .append("' "));
            return s.toString();
        }

        /** A header value of one of the shapes; null removes the header. */
        static String value(Random random) {
            return switch (random.nextInt(7)) {
                case 0 -> null;
                case 1, 2 -> SHAPES[random.nextInt(SHAPES.length)];
                case 3 -> ascii(random, 1 + random.nextInt(30));
                case 4 -> ascii(random, 2000 + random.nextInt(4000));
                case 5 ->
                    new String(
                            "\u00e9t\u00e9/\u65e5\u672c; charset=\u00fc \ud83d\ude00".getBytes(StandardCharsets.UTF_8),
                            StandardCharsets.ISO_8859_1);
                default -> "application/json; charset=\u00e9\u00ff" + ascii(random, random.nextInt(5));
            };
        }

        /** Printable ASCII, separators and quotes included. */
        static String ascii(Random random, int length) {
            StringBuilder s = new StringBuilder(length);
            for (int i = 0; i < length; i++) {
                s.append((char) (0x20 + random.nextInt(0x5f)));
            }
            return s.toString().strip();
        }

        /** Sends the headers as Latin-1 bytes (a value of UTF-8 bytes arrives as such) and reads the answer's head. */
        static Answer post(Map<String, String> headers, byte[] body) throws IOException {
            int port = RestAssured.port;
            StringBuilder head = new StringBuilder("POST / HTTP/1.1\r\n")
                    .append("Host: localhost:")
                    .append(port)
                    .append("\r\nAuthorization: ")
                    .append(Tokens.bearer(Tokens.ADMIN))
                    .append("\r\nConnection: close\r\nContent-Length: ")
                    .append(body.length)
                    .append("\r\n");
            headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
            head.append("\r\n");
            try (Socket socket = new Socket("localhost", port)) {
                socket.setSoTimeout(30_000);
                socket.setTcpNoDelay(true);
                // head and body in one write: two small ones wait on Nagle's algorithm and the delayed ACK
                byte[] h = head.toString().getBytes(StandardCharsets.ISO_8859_1);
                byte[] request = Arrays.copyOf(h, h.length + body.length);
                System.arraycopy(body, 0, request, h.length, body.length);
                var out = socket.getOutputStream();
                out.write(request);
                out.flush();
                String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
                String[] lines = answer.split("\r\n");
                int status = Integer.parseInt(lines[0].split(" ")[1]);
                String type = Arrays.stream(lines)
                        .takeWhile(l -> !l.isEmpty())
                        .filter(l -> l.toLowerCase(Locale.ROOT).startsWith("content-type:"))
                        .map(l -> l.substring("content-type:".length()).strip())
                        .findFirst()
                        .orElse("");
                return new Answer(status, type, answer.length() > 600 ? answer.substring(0, 600) : answer);
            }
        }
    }
}
