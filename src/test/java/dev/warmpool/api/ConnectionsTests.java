package dev.warmpool.api;

import static dev.warmpool.testing.Tokens.bearer;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.testing.Api;
import dev.warmpool.testing.Tokens;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.ConfigProvider;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;

/**
 * What one client can hold (warmpool.connections.*): a quiet connection is closed soon, a quiet
 * event stream or wait of a known caller is not, a caller's open streams are bounded (429), a
 * request head is bounded (431), the connection cap reaches Quarkus.
 */
@QuarkusTest
@TestProfile(ConnectionsTests.Tight.class)
class ConnectionsTests {
    static {
        Tokens.asAdminByDefault();
    }

    static final HttpClient HTTP =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    public static class Tight implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "warmpool.connections.idle-timeout",
                    "1s",
                    "warmpool.connections.streams-per-caller",
                    "2",
                    "warmpool.connections.max-header-bytes",
                    "8192",
                    "warmpool.connections.max",
                    "500");
        }
    }

    @TestHTTPResource("/")
    URL base;

    @Test
    void closesAConnectionThatSendsNoCompleteRequestAfterTheIdleTimeout() throws Exception {
        try (Socket s = new Socket(base.getHost(), base.getPort())) {
            s.getOutputStream().write("GET /pools HTTP/1.1\r\nHost: localhost\r\n".getBytes(StandardCharsets.US_ASCII));
            s.setSoTimeout(200);
            InputStream in = s.getInputStream();
            long start = System.nanoTime();
            await().atMost(Duration.ofSeconds(10)).until(() -> closed(in));
            assertTrue(System.nanoTime() - start > 500_000_000L, "closed by the idle timeout, not at once");
        }
    }

    private static boolean closed(InputStream in) throws Exception {
        try {
            return in.read() == -1;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true; // reset
        }
    }

    @Test
    void aKnownCallersQuietStreamAndWaitOutliveTheIdleTimeout() throws Exception {
        Api.putPool("conn-quiet", Map.of("command", List.of("sh", "-c", "sleep 3"), "minIdle", 0, "maxSize", 2));
        String streamed = Api.submit(Map.of("type", "conn-quiet"));
        String waited = Api.submit(Map.of("type", "conn-quiet"));
        HttpResponse<String> events = HTTP.send(
                HttpRequest.newBuilder(uri("/jobs/" + streamed + "/events"))
                        .header("Authorization", bearer(Tokens.ADMIN))
                        .timeout(Duration.ofSeconds(60))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, events.statusCode());
        assertTrue(events.body().contains("event:end"), "the stream reached the job's end: " + events.body());
        given().get("/jobs/" + waited + "?wait=30").then().statusCode(200).body("state", Matchers.equalTo("SUCCEEDED"));
    }

    @Test
    void refusesAnEventStreamPastTheCallersLimitWith429AndTakesOneAgainWhenOneCloses() throws Exception {
        List<InputStream> open = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            HttpResponse<InputStream> r = feed(Tokens.BOB);
            assertEquals(200, r.statusCode());
            open.add(r.body());
        }
        HttpResponse<InputStream> third = feed(Tokens.BOB);
        assertEquals(429, third.statusCode());
        String problem = new String(third.body().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(problem.contains("too-many-streams") && problem.contains("streams-per-caller"), problem);
        assertEquals(
                "application/problem+json",
                third.headers().firstValue("Content-Type").orElse("").split(";")[0]);
        assertTrue(third.headers().firstValue("Retry-After").isPresent());
        HttpResponse<InputStream> others = feed(Tokens.ALICE);
        assertEquals(200, others.statusCode(), "another caller is not held back");
        others.body().close();
        open.remove(0).close();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            HttpResponse<InputStream> again = feed(Tokens.BOB);
            if (again.statusCode() == 200) {
                open.add(again.body());
                return true;
            }
            again.body().close();
            return false;
        });
        for (InputStream in : open) {
            in.close();
        }
    }

    @Test
    void refusesARequestHeadLargerThanTheLimit() throws Exception {
        try (Socket s = new Socket(base.getHost(), base.getPort())) {
            OutputStream out = s.getOutputStream();
            out.write(("GET /pools HTTP/1.1\r\nHost: localhost\r\nX-Big: " + "a".repeat(10_000) + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            s.setSoTimeout(10_000);
            String status = new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            assertEquals("HTTP/1.1 431", status);
        }
    }

    @Test
    void theConnectionCapIsQuarkusOwn() {
        assertEquals(500, ConfigProvider.getConfig().getValue("quarkus.http.limits.max-connections", Integer.class));
        assertEquals(
                Duration.ofSeconds(1),
                ConfigProvider.getConfig().getValue("quarkus.http.idle-timeout", Duration.class));
    }

    private HttpResponse<InputStream> feed(String token) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(uri("/ui/events"))
                        .header("Authorization", bearer(token))
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
    }

    private URI uri(String path) {
        return URI.create(base.toString().replaceAll("/$", "") + path);
    }
}
