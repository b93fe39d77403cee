package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.runtime.local.LocalAgents;
import dev.warmpool.store.RedisServer;
import dev.warmpool.testing.Tokens;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The packaged manager as a process of its own: for the tests that kill, restart or double it,
 * and for the benchmark (dev.warmpool.bench), which starts it the same way with its own options.
 */
public final class ManagerProcess implements AutoCloseable {
    static final Path RUNNER = Path.of("target", "quarkus-app", "quarkus-run.jar");
    public static final HttpClient HTTP = HttpClient.newHttpClient();
    public static final ObjectMapper JSON = new ObjectMapper();

    public final Process process;
    public final int port;
    /** Launch to ready (/q/health/ready answers 200), in milliseconds. */
    public final double readyMs;

    private final String token;

    private ManagerProcess(Process process, int port, double readyMs, String token) {
        this.process = process;
        this.port = port;
        this.readyMs = readyMs;
        this.token = token;
    }

    public String base() {
        return "http://127.0.0.1:" + port;
    }

    /** Starts a manager on {@code redisUrl} and waits until it is ready. */
    public static ManagerProcess start(String redisUrl, String name, String... options) throws IOException {
        return start(Path.of(System.getProperty("java.home"), "bin", "java"), redisUrl, name, options);
    }

    /** Starts a manager with the JVM {@code java} on {@code redisUrl} and waits until it is ready. */
    public static ManagerProcess start(Path java, String redisUrl, String name, String... options) throws IOException {
        List<String> all = new ArrayList<>(List.of("-Dquarkus.profile=test"));
        all.addAll(List.of(options));
        return launch(java, redisUrl, name, Path.of("."), Tokens.ADMIN, all);
    }

    /**
     * Starts the packaged manager with the JVM {@code java} on {@code redisUrl} and waits until it
     * is ready: the one in {@code dir} when it holds a quarkus-run.jar (started from there, as a
     * class-data archive recorded there wants), else target/quarkus-app's, started from {@code dir}.
     * Its output goes to target/{@code name}.log; {@code token} is the bearer its calls send.
     */
    public static ManagerProcess launch(
            Path java, String redisUrl, String name, Path dir, String token, List<String> options) throws IOException {
        int port = RedisServer.freePort();
        Path app = Files.exists(dir.resolve("quarkus-run.jar"))
                ? dir.toAbsolutePath()
                : RUNNER.getParent().toAbsolutePath();
        List<String> cmd = new ArrayList<>(
                List.of(java.toString(), "-Dquarkus.redis.hosts=" + redisUrl, "-Dquarkus.http.port=" + port));
        cmd.addAll(options);
        cmd.addAll(List.of(
                "-jar",
                dir.toAbsolutePath().normalize().equals(app.normalize())
                        ? "quarkus-run.jar"
                        : app.resolve("quarkus-run.jar").toString()));
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        Path.of("target", name + ".log").toAbsolutePath().toFile()))
                .start();
        ManagerProcess starting = new ManagerProcess(p, port, 0, token);
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(2))
                .ignoreExceptions()
                .until(() -> starting.status("GET", "/q/health/ready", null) == 200);
        return new ManagerProcess(p, port, (System.nanoTime() - t0) / 1e6, token);
    }

    /** A manager started elsewhere (on {@code port}), once it is ready; calls send {@code token}. */
    static ManagerProcess attach(Process p, int port, String token) {
        long t0 = System.nanoTime();
        ManagerProcess starting = new ManagerProcess(p, port, 0, token);
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(20))
                .ignoreExceptions()
                .until(() -> starting.status("GET", "/q/health/ready", null) == 200);
        return new ManagerProcess(p, port, (System.nanoTime() - t0) / 1e6, token);
    }

    public HttpResponse<String> call(String method, String path, String body) throws Exception {
        return HTTP.send(request(method, path, body, Map.of()), HttpResponse.BodyHandlers.ofString());
    }

    /** A request to this manager as its token's holder, JSON in, with {@code headers} added. */
    public HttpRequest request(String method, String path, String body, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + path))
                .timeout(Duration.ofSeconds(120))
                .header("Content-Type", "application/json")
                .header("Authorization", Tokens.bearer(token))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(b::header);
        return b.build();
    }

    public int status(String method, String path, String body) throws Exception {
        return call(method, path, body).statusCode();
    }

    public JsonNode get(String path) throws Exception {
        HttpResponse<String> r = call("GET", path, null);
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }

    public JsonNode send(String method, String path, String body) throws Exception {
        HttpResponse<String> r = call(method, path, body);
        assertTrue(r.statusCode() < 300, r.statusCode() + " " + r.body());
        return JSON.readTree(r.body());
    }

    /** SIGTERM, and wait: the manager stops as a scale-down stops it. */
    public void stop() throws InterruptedException {
        process.destroy();
        process.waitFor();
    }

    public void kill() throws InterruptedException {
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
        LocalAgents.killAll(redis.url());
        redis.stop();
    }
}
