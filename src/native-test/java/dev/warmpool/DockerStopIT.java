package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.store.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code stop} of an install on the docker runtime, run as a user runs it (no runtime or engine
 * setting: the state dir says): its manager ends and its containers go with their volumes; the
 * Redis it was given is left running.
 */
class DockerStopIT extends DockerFixture {
    final Path stateDir;

    DockerStopIT() throws IOException {
        stateDir = Files.createTempDirectory("wp-docker-stop");
    }

    @Override
    String name() {
        return "docker-stop-it";
    }

    @Override
    List<String> managerOptions() {
        return List.of("-Dwarmpool.runtime.local.state-dir=" + stateDir);
    }

    /** The anonymous volumes of container {@code id}. */
    List<String> volumes(String id) throws Exception {
        List<String> out = new ArrayList<>();
        for (String v : run(
                        "docker",
                        "inspect",
                        "-f",
                        "{{range .Mounts}}{{if eq .Type \"volume\"}}{{.Name}} {{end}}{{end}}",
                        id)
                .out()
                .trim()
                .split(" ")) {
            if (!v.isBlank()) {
                out.add(v);
            }
        }
        return out;
    }

    @Test
    void stopEndsTheManagerAndRemovesItsContainersWithTheirVolumes() throws Exception {
        pool("stopped", "[\"sh\", \"-c\", \"true\"]", 2, 2, "");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> containers(poolLabel("stopped")).size() == 2);
        List<String> volumes = new ArrayList<>();
        for (String id : containers(poolLabel("stopped"))) {
            volumes.addAll(volumes(id));
        }
        assertFalse(volumes.isEmpty(), "each container has the volume of its secrets");

        Process stop = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Dwarmpool.runtime.local.state-dir=" + stateDir,
                        "-jar",
                        ManagerProcess.RUNNER.toAbsolutePath().toString(),
                        "stop")
                .redirectErrorStream(true)
                .start();
        String said = new String(stop.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(stop.waitFor(120, TimeUnit.SECONDS), said);
        assertEquals(0, stop.exitValue(), said);
        assertTrue(said.contains("stopped 1 manager(s) and 0 agent(s), 2 container(s)"), said);
        assertTrue(said.contains("Redis: not ours"), said);

        assertFalse(manager.process.isAlive(), "the manager");
        String left = run("docker", "ps", "-a", "-q", "--filter", "label=warmpool.dev/instance=" + instance)
                .out()
                .trim();
        assertEquals("", left, "its containers, running or not");
        for (String v : volumes) {
            assertTrue(run("docker", "volume", "inspect", v).exit() != 0, "volume " + v + " is gone");
        }
        assertTrue(RedisServer.ping(redis.port()), "the Redis it was given runs on");
    }
}
