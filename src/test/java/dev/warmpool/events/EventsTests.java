package dev.warmpool.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

@QuarkusTest
@TestProfile(EventScenarios.QuietReconciler.class)
class EventsTests extends EventScenarios {
    @Inject
    MeterRegistry registry;

    @TestHTTPResource("/")
    URI sink;

    double count(String name) {
        return registry.get(name).functionCounter().count();
    }

    @Test
    void aBurstOfFiftyPingsRunsAboutTwoPasses() {
        double passes = count("warmpool.ping.passes");
        double pings = count("warmpool.pings");
        HttpClient client = HttpClient.newHttpClient();
        List<CompletableFuture<HttpResponse<String>>> burst = IntStream.range(0, 50)
                .mapToObj(i -> client.sendAsync(
                        HttpRequest.newBuilder(sink)
                                .header("ce-specversion", "1.0")
                                .header("ce-id", UUID.randomUUID().toString())
                                .header("ce-source", "/tests/burst")
                                .header("ce-type", EventTypes.PING)
                                .header("content-type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString()))
                .toList();
        burst.forEach(r -> assertEquals(200, r.join().statusCode(), r.join().body()));
        assertEquals(50, count("warmpool.pings") - pings);
        double ran = count("warmpool.ping.passes") - passes;
        // two: the first ping's, and one that every later ping shares; a third only if the
        // burst's last ping reached the manager more than a second after its first (a loaded machine)
        assertTrue(ran >= 1 && ran <= 3, "passes for 50 pings: " + ran);
    }
}
