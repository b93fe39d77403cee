package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.warmpool.runtime.local.LocalAgents;
import dev.warmpool.store.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The image's training script (src/main/docker/aot-train.sh) records an AOT cache that a JDK 25
 * takes: a manager started with it and {@code -XX:AOTMode=on} (which refuses to start on a cache
 * it cannot use) is ready, maps the cache and runs a job. Needs a JDK 25 or newer (JAVA25_HOME,
 * the JDK running the tests, or one under /usr/lib/jvm).
 */
class AotCacheIT {
    static final String LEAN = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";
    RedisServer training = RedisServer.ephemeral();
    RedisServer redis = RedisServer.ephemeral();
    ManagerProcess manager;

    @AfterEach
    void cleanUp() throws InterruptedException {
        LocalAgents.killAll(training.url());
        training.stop();
        ManagerProcess.tearDown(redis, Collections.singletonList(manager));
    }

    static Path jdk25OrNewer() {
        List<Path> homes = new ArrayList<>();
        if (System.getenv("JAVA25_HOME") != null) {
            homes.add(Path.of(System.getenv("JAVA25_HOME")));
        }
        if (Runtime.version().feature() >= 25) {
            homes.add(Path.of(System.getProperty("java.home")));
        }
        try (Stream<Path> dirs = Files.list(Path.of("/usr/lib/jvm"))) {
            dirs.filter(d -> d.getFileName().toString().matches(".*-(2[5-9]|[3-9][0-9])(-.*|\\..*|)"))
                    .sorted()
                    .forEach(homes::add);
        } catch (Exception e) {
            // no JDKs there
        }
        return homes.stream()
                .map(h -> h.resolve("bin").resolve("java"))
                .filter(Files::isExecutable)
                .findFirst()
                .orElse(null);
    }

    @Test
    void aManagerStartsFromTheCacheTheTrainingScriptRecordsAndRunsAJob() throws Exception {
        Path java = jdk25OrNewer();
        assumeTrue(java != null, "no JDK 25 or newer here: set JAVA25_HOME");
        Path cache = Path.of("target", "warmpool-test", "aot", "app.aot").toAbsolutePath();
        Files.deleteIfExists(cache);
        Files.createDirectories(cache.getParent());
        ProcessBuilder pb = new ProcessBuilder(
                        "bash", "src/main/docker/aot-train.sh", "target/quarkus-app", cache.toString())
                .redirectErrorStream(true)
                .redirectOutput(Path.of("target", "aot-train-it.log").toFile());
        pb.environment()
                .putAll(Map.of(
                        "JAVA",
                        java.toString(),
                        "JAVA_OPTS",
                        LEAN,
                        "REDIS_URL",
                        training.url(),
                        "TRAIN_PORT",
                        Integer.toString(RedisServer.freePort())));
        Process train = pb.start();
        assertTrue(train.waitFor(240, TimeUnit.SECONDS), "the training run took over 4 minutes");
        assertEquals(0, train.exitValue(), Files.readString(Path.of("target", "aot-train-it.log")));
        assertTrue(Files.size(cache) > 0);
        assertTrue(LocalAgents.agentPids(training.url()).isEmpty(), "the script stops the agents its manager started");

        List<String> options = new ArrayList<>(List.of(LEAN.split(" ")));
        options.addAll(List.of("-XX:AOTMode=on", "-XX:AOTCache=" + cache));
        manager = ManagerProcess.start(java, redis.url(), "aot-cache-it", options.toArray(String[]::new));
        String maps = Files.readString(Path.of("/proc", Long.toString(manager.process.pid()), "maps"));
        assertTrue(maps.lines().anyMatch(l -> l.endsWith(cache.toString())), "the manager maps the cache");
        manager.send("PUT", "/pools/aot", "{\"command\": [\"true\"], \"minIdle\": 1, \"maxSize\": 1}");
        String id =
                manager.send("POST", "/jobs", "{\"type\": \"aot\"}").get("id").asText();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> "SUCCEEDED"
                        .equals(manager.get("/jobs/" + id).get("state").asText()));
    }
}
