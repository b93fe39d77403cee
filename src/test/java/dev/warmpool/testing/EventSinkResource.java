package dev.warmpool.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.warmpool.store.RedisServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A CloudEvents sink for the test run (what K_SINK names): it keeps what it receives and shows it
 * at GET /received. Events about jobs of type {@code ev-flaky} are refused (503) twice first, so
 * tests see the agent's retries. Its address is in the system property {@code wptest.sink}.
 */
public class EventSinkResource implements QuarkusTestResourceLifecycleManager {
    private HttpServer server;
    private final List<String> received = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();

    @Override
    public Map<String, String> start() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", RedisServer.freePort()), 0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        server.createContext("/received", this::list);
        server.createContext("/", this::receive);
        server.start();
        String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/";
        System.setProperty("wptest.sink", url);
        return Map.of("warmpool.events.sink", url);
    }

    private void receive(HttpExchange ex) throws IOException {
        String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String id = ex.getRequestHeaders().getFirst("ce-id");
        int attempt = attempts.computeIfAbsent(String.valueOf(id), k -> new AtomicInteger())
                .incrementAndGet();
        if (body.contains("\"type\":\"ev-flaky\"") && attempt <= 2) {
            respond(ex, 503, "");
            return;
        }
        received.add("{\"ceType\":\"" + ex.getRequestHeaders().getFirst("ce-type") + "\",\"ceId\":\"" + id
                + "\",\"ceSubject\":\"" + ex.getRequestHeaders().getFirst("ce-subject") + "\",\"ceSource\":\""
                + ex.getRequestHeaders().getFirst("ce-source") + "\",\"attempts\":" + attempt + ",\"data\":" + body
                + "}");
        respond(ex, 202, "");
    }

    private void list(HttpExchange ex) throws IOException {
        ex.getResponseHeaders().add("Content-Type", "application/json");
        respond(ex, 200, "[" + String.join(",", received) + "]");
    }

    private static void respond(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            ex.getResponseBody().write(bytes);
        }
        ex.close();
    }

    @Override
    public void stop() {
        if (server != null) {
            server.stop(0);
        }
    }
}
