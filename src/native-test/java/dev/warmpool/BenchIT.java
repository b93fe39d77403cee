package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.bench.Bench;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The benchmark's small version, so CI proves it still works. It asserts that every figure is
 * there and sane, never how fast anything is: this machine is shared and noisy.
 */
class BenchIT {
    @Test
    void theQuickBenchmarkRunsAndReportsEveryFigure() throws Exception {
        Path json = Path.of("target", "bench.json");
        Files.deleteIfExists(json);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // this JVM's class path holds the bench (a test source) and everything it needs
        Process p = new ProcessBuilder(
                        java, "-cp", System.getProperty("java.class.path"), Bench.class.getName(), "--quick")
                .redirectErrorStream(true)
                .redirectOutput(Path.of("target", "bench-quick.txt").toFile())
                .start();
        await().atMost(Duration.ofMinutes(10)).until(() -> !p.isAlive());
        assertEquals(0, p.exitValue(), Files.readString(Path.of("target", "bench-quick.txt")));
        JsonNode figures = ManagerProcess.JSON.readTree(json.toFile());
        for (String key : List.of(
                "warm.submitToRunning.p50",
                "cold.submitToRunning.p50",
                "burst.true.jobsPerSecond",
                "burst.noop.jobsPerSecond",
                "redis.roundTripsPerJob",
                "scale.100processors.reconcilePassMs.p50",
                "manager.readyMs",
                "agent.rssMb")) {
            assertTrue(figures.has(key), key + " in " + figures);
            assertTrue(figures.get(key).asDouble() > 0, key + " = " + figures.get(key));
        }
        assertTrue(figures.get("cold.submitToRunning.p50").asDouble()
                > figures.get("warm.submitToRunning.p50").asDouble());
    }
}
