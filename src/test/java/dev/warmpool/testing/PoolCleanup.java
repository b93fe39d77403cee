package dev.warmpool.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.callback.QuarkusTestAfterAllCallback;
import io.quarkus.test.junit.callback.QuarkusTestContext;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * After each {@code @QuarkusTest} class, the pools it made are deleted (drained: their idle
 * processors given back at once), so warm agents do not pile up through the suite (68 agent JVMs,
 * 6.0 GB at the unit phase's peak before). Registered through
 * {@code META-INF/services/io.quarkus.test.junit.callback.QuarkusTestAfterAllCallback}; plain HTTP
 * to the app under test with the tests' admin token, since the callback runs in Quarkus' test class
 * loader, where a filter set on RestAssured from the test's own never applies.
 */
public class PoolCleanup implements QuarkusTestAfterAllCallback {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Override
    public void afterAll(QuarkusTestContext context) {
        Optional<Integer> port = port();
        if (port.isEmpty()) {
            return;
        }
        String base = "http://localhost:" + port.get();
        try {
            HttpResponse<String> pools =
                    HTTP.send(request(base + "/pools").GET().build(), HttpResponse.BodyHandlers.ofString());
            if (pools.statusCode() != 200) {
                return;
            }
            List<String> deleted = new ArrayList<>();
            for (JsonNode pool : JSON.readTree(pools.body())) {
                String type = pool.path("type").asText("");
                if (!type.isEmpty()) {
                    deleted.add(type);
                    HTTP.send(request(pool(base, type)).DELETE().build(), HttpResponse.BodyHandlers.discarding());
                }
            }
            // the next class starts with them gone (drained: a busy processor ends its job first), up to a bound
            List<String> left = new ArrayList<>(deleted);
            try {
                Awaitility.await()
                        .atMost(GONE_WITHIN)
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> {
                            left.removeIf(type -> status(base, type) == 404);
                            return left.isEmpty();
                        });
            } catch (ConditionTimeoutException e) {
                // still draining (a busy processor, a mock cluster's pods): said below, the next class goes on
            }
            System.err.printf(
                    "PoolCleanup: %d pool(s) deleted after %s%s%n",
                    deleted.size(), name(context), left.isEmpty() ? "" : ", still draining: " + left);
        } catch (IOException e) {
            // the app is gone already: so are its pools' agents, with the test's Redis
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** How long the cleanup waits for the pools it deleted to be gone. */
    static final Duration GONE_WITHIN = Duration.ofSeconds(10);

    private static int status(String base, String type) {
        try {
            return HTTP.send(request(pool(base, type)).GET().build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return 404; // the app is gone, and its pools with it
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 404;
        }
    }

    private static String pool(String base, String type) {
        return base + "/pools/" + URLEncoder.encode(type, StandardCharsets.UTF_8);
    }

    private static String name(QuarkusTestContext context) {
        Object test = context.getTestInstance();
        return test == null ? "a test class" : test.getClass().getSimpleName();
    }

    private static HttpRequest.Builder request(String url) {
        return HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + Tokens.ADMIN);
    }

    /** The port the app under test listens on (the test port is drawn at start: 0 in the config). */
    private static Optional<Integer> port() {
        for (String p :
                new String[] {System.getProperty("quarkus.http.test-port"), System.getProperty("quarkus.http.port")}) {
            if (p != null && !p.isBlank() && !p.equals("0")) {
                return Optional.of(Integer.parseInt(p.trim()));
            }
        }
        return ConfigProvider.getConfig()
                .getOptionalValue("quarkus.http.test-port", Integer.class)
                .filter(p -> p > 0);
    }
}
