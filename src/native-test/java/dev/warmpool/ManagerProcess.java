package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.runtime.local.LocalRuntime;
import dev.warmpool.store.RedisServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** The packaged manager as a process of its own, for tests that kill, restart or double it. */
final class ManagerProcess implements AutoCloseable {
    static final Path RUNNER = Path.of("target", "quarkus-app", "quarkus-run.jar");
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();

    final Process process;
    final int port;

    private ManagerProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts a manager on {@code redisUrl} and waits until it is ready. */
    static ManagerProcess start(String redisUrl, String name, String... options) throws IOException {
        return start(Path.of(System.getProperty("java.home"), "bin", "java"), redisUrl, name, options);
    }

    /** Starts a manager with the JVM {@code java} on {@code redisUrl} and waits until it is ready. */
    static ManagerProcess start(Path java, String redisUrl, String name, String... options) throws IOException {
        int port = RedisServer.freePort();
        List<String> cmd = new java.util.ArrayList<>(List.of(java.toString(),
                "-Dquarkus.redis.hosts=" + redisUrl, "-Dquarkus.http.port=" + port, "-Dquarkus.profile=test"));
        cmd.addAll(List.of(options));
        cmd.addAll(List.of("-jar", RUNNER.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(Path.of("target", name + ".log").toFile())).start();
        ManagerProcess m = new ManagerProcess(p, port);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> m.status("GET", "/q/health/ready", null) == 200);
        return m;
    }

    HttpResponse<String> call(String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                .header("Authorization", Tokens.bearer(Tokens.ADMIN))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    int status(String method, String path, String body) throws Exception {
        return call(method, path, body).statusCode();
    }

    JsonNode get(String path) throws Exception {
        HttpResponse<String> r = call("GET", path, null);
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }

    JsonNode send(String method, String path, String body) throws Exception {
        HttpResponse<String> r = call(method, path, body);
        assertTrue(r.statusCode() < 300, r.statusCode() + " " + r.body());
        return JSON.readTree(r.body());
    }

    void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }

    /** After a test: kills its managers (null ones skipped), the agents they left on {@code redis}, then Redis. */
    static void tearDown(RedisServer redis, Iterable<ManagerProcess> managers) throws InterruptedException {
        for (ManagerProcess m : managers) {
            if (m != null) {
                m.kill();
            }
        }
        LocalRuntime.killAll(redis.url());
        redis.stop();
    }
}
