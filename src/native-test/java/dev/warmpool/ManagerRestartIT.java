package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.pool.Names;
import dev.warmpool.runtime.local.LocalRuntime;
import dev.warmpool.store.KeySchema;
import dev.warmpool.store.RedisServer;
import dev.warmpool.store.Script;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The manager is stateless: kill -9 it, and its warm processors keep serving (a job submitted
 * straight to Redis runs); start it again, and it adopts them instead of starting new ones.
 */
class ManagerRestartIT {
    static final Path RUNNER = Path.of("target", "quarkus-app", "quarkus-run.jar");
    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();
    RedisServer redis;
    Process manager;
    int port;

    @BeforeEach
    void redis() {
        redis = RedisServer.ephemeral();
    }

    @AfterEach
    void cleanUp() {
        if (manager != null) {
            manager.destroyForcibly();
        }
        LocalRuntime.killAll(redis.url());
        redis.stop();
    }

    @Test
    void warmProcessorsKeepServingWhileTheManagerIsDownAndAreAdoptedWhenItReturns() throws Exception {
        startManager();
        send("PUT", "/pools/restart", "{\"command\": [\"sh\", \"-c\", \"echo served\"], \"minIdle\": 1, \"maxSize\": 2}");
        await().atMost(Duration.ofSeconds(60)).until(() -> get("/pools/restart").at("/status/idle").asInt() == 1);
        String processor = get("/pools/restart").at("/processors/0/id").asText();

        manager.destroyForcibly().waitFor();
        assertTrue(LocalRuntime.agentPids(redis.url()).size() == 1, "the agent outlives its manager");
        String jobId = submitStraightToRedis("restart");
        try (Jedis j = new Jedis(URI.create(redis.url()))) {
            String key = KeySchema.job("restart", jobId);
            await().atMost(Duration.ofSeconds(30)).until(() -> "SUCCEEDED".equals(j.hget(key, "state")));
            assertEquals(processor, j.hget(key, "processor"));
        }

        startManager();
        JsonNode pool = get("/pools/restart");
        assertEquals(1, pool.at("/processors").size());
        assertEquals(processor, pool.at("/processors/0/id").asText());
        JsonNode job = json.readTree(send("POST", "/jobs", "{\"type\": \"restart\"}"));
        JsonNode ended = get("/jobs/" + job.get("id").asText() + "?wait=30");
        assertEquals("SUCCEEDED", ended.get("state").asText());
        assertEquals(processor, ended.get("processor").asText());
        assertEquals("served\n", ended.at("/result/logTail").asText());
    }

    /** What POST /jobs does, without the manager: the submit script, run by hand. */
    private String submitStraightToRedis(String type) {
        String id = Names.newJobId(type, System.currentTimeMillis());
        List<String> argv = new ArrayList<>(List.of(KeySchema.prefix(type), id, "0", "id", id, "type", type,
                "args", "[]", "config", "{}", "env", "{}", "timeoutSeconds", "60", "maxAttempts", "1", "priority", "0"));
        try (Jedis j = new Jedis(URI.create(redis.url()))) {
            Object reply = j.eval(Script.SUBMIT.source(), List.of(KeySchema.pool(type)), argv);
            assertEquals("ASSIGNED", String.valueOf(((List<?>) reply).get(0)));
        }
        return id;
    }

    private void startManager() throws IOException {
        port = RedisServer.freePort();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        manager = new ProcessBuilder(java, "-Dquarkus.redis.hosts=" + redis.url(), "-Dquarkus.http.port=" + port,
                "-Dquarkus.profile=test", "-jar", RUNNER.toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(Path.of("target", "manager-restart-it.log").toFile()))
                .start();
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/health/ready")).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
    }

    private JsonNode get(String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return json.readTree(r.body());
    }

    private String send(String method, String path, String body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertTrue(r.statusCode() < 300, r.statusCode() + " " + r.body());
        return r.body();
    }
}
