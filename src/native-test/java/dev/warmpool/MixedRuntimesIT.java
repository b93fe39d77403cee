package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A pool's runtime is part of the pool, against the packaged manager and a real engine: one docker
 * manager runs a local pool's jobs on the host and a container pool's in its containers; a manager
 * started again without docker never runs a docker pool on the host (its startError says why).
 * Outside CI, a machine without an engine skips these tests.
 */
class MixedRuntimesIT extends DockerFixture {
    static final String HOSTNAME_JOB = "[\"sh\", \"-c\", \"echo host=$(hostname)\"]";

    @Override
    String name() {
        return "mixed-runtimes-it";
    }

    static String hostName() throws Exception {
        return Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
    }

    @Test
    void aDockerManagerRunsALocalPoolOnTheHostAndAnImagesPoolInItsContainers() throws Exception {
        manager.send(
                "PUT",
                "/pools/on-host",
                "{\"command\": " + HOSTNAME_JOB + ", \"minIdle\": 0, \"maxSize\": 1, \"runtime\": \"local\"}");
        pool("in-container", HOSTNAME_JOB, 0, 1, "");
        assertEquals("local", manager.get("/pools/on-host").at("/spec/runtime").asText());
        assertEquals(
                "docker", manager.get("/pools/in-container").at("/spec/runtime").asText());
        try {
            JsonNode local = runJob("on-host", 60);
            assertEquals("SUCCEEDED", local.get("state").asText(), local.toString());
            assertTrue(
                    local.at("/result/logTail").asText().contains("host=" + hostName()),
                    "a local pool's job runs on the host: " + local);
            JsonNode contained = runJob("in-container", 60);
            assertEquals("SUCCEEDED", contained.get("state").asText(), contained.toString());
            assertFalse(
                    contained.at("/result/logTail").asText().contains("host=" + hostName()),
                    "an image's pool runs in its container: " + contained);
            assertEquals(0, containers(poolLabel("on-host")).size(), "no container for the local pool");
        } finally {
            manager.send("DELETE", "/pools/on-host", null);
        }
    }

    @Test
    void aPoolWhoseImageIsNotOnTheEngineIsRefusedAtItsPutNotLeftToFailItsStarts() throws Exception {
        HttpResponse<String> r = manager.call(
                "PUT",
                "/pools/no-image",
                "{\"command\": [\"true\"], \"minIdle\": 1, \"maxSize\": 1, "
                        + "\"template\": {\"image\": \"warmpool-no-such-image:never\"}}");
        assertEquals(400, r.statusCode(), r.body());
        JsonNode problem = ManagerProcess.JSON.readTree(r.body());
        assertEquals("template.image", problem.get("field").asText(), r.body());
        assertTrue(problem.get("detail").asText().contains("pull or build it there first"), r.body());
        assertEquals(404, manager.status("GET", "/pools/no-image", null), "nothing was stored");
        assertEquals(0, containers(poolLabel("no-image")).size());
    }

    @Test
    void aDockerPoolIsNeverRunOnTheHostByAManagerStartedWithoutDocker() throws Exception {
        pool("stays-in-docker", HOSTNAME_JOB, 0, 1, "");
        manager.kill();
        manager = ManagerProcess.start(
                "redis://:" + PASSWORD + "@127.0.0.1:" + redis.port(),
                name() + "-local",
                "-Dwarmpool.runtime.type=local");
        try {
            String id = manager.send("POST", "/jobs", "{\"type\": \"stays-in-docker\"}")
                    .get("id")
                    .asText();
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> manager.get("/pools/stays-in-docker")
                            .path("startError")
                            .path("reason")
                            .asText()
                            .contains("runs on the docker runtime, and this manager has no docker runtime"));
            assertEquals(
                    "docker",
                    manager.get("/pools/stays-in-docker").at("/spec/runtime").asText());
            String state = manager.get("/jobs/" + id).get("state").asText();
            assertTrue(List.of("QUEUED", "FAILED").contains(state), "never run on the host: " + state);
            assertEquals(List.of(), containers(poolLabel("stays-in-docker")));
        } finally {
            manager.send("DELETE", "/pools/stays-in-docker", null);
            manager.kill();
            startManager();
        }
    }
}
