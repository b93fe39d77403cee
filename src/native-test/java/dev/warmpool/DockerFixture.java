package dev.warmpool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.runtime.docker.DockerEngine;
import dev.warmpool.store.RedisServer;
import dev.warmpool.testing.Ci;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The packaged manager on the docker runtime against a real engine, for the container ITs: a
 * Redis with a password on loopback and on the engine's bridge gateway (agents connect there as
 * their pool's ACL user), the base image made by debootstrap (src/main/docker/base-image.sh).
 * The engine is Docker's ({@code DOCKER_HOST}, else /var/run/docker.sock) unless a subclass
 * names another ({@link #engine()}: Podman's Docker-compatible socket); the {@code docker} CLI the
 * tests call talks to the same one. Outside CI, a machine without an engine skips these tests.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DockerFixture {
    static final String IMAGE = "warmpool-base:bookworm";
    /** The same base with python3 (still no Java). */
    static final String PYTHON_IMAGE = "warmpool-python:bookworm";

    static final String PASSWORD = "docker-it-" + Long.toHexString(System.nanoTime());
    RedisServer redis;
    ManagerProcess manager;
    String instance;
    /** The engine's API, as DOCKER_HOST names it. */
    String host;

    /** The engine's API (null: Docker's, as DOCKER_HOST says); a subclass may start its own engine here. */
    String engine() throws Exception {
        return System.getenv().getOrDefault("DOCKER_HOST", "unix:///var/run/docker.sock");
    }

    /** What the manager's log file is called (target/NAME.log). */
    abstract String name();

    /** Manager options besides the runtime's and the engine's. */
    List<String> managerOptions() {
        return List.of();
    }

    /** Makes {@code image} with base-image.sh (cached by tag) where the engine is. */
    void image(String image, String... packages) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("bash", "src/main/docker/base-image.sh", image));
        cmd.addAll(List.of(packages));
        Result base = run(cmd.toArray(String[]::new));
        assertEquals(0, base.exit(), base.out());
    }

    @BeforeAll
    void dockerRedisAndManager() throws Exception {
        host = engine();
        boolean answers = run("docker", "info").exit() == 0;
        Ci.require(answers, "no container engine answers at " + host, ".ci/run starts dockerd");
        image(IMAGE);
        String gateway = DockerEngine.gateway(DockerEngine.client(host), "bridge");
        // the manager reaches Redis on loopback, its containers at the bridge's gateway
        redis = RedisServer.ephemeral("--requirepass", PASSWORD, "--bind", "127.0.0.1", gateway);
        instance = "127.0.0.1:" + redis.port();
        startManager();
    }

    void startManager() throws IOException {
        List<String> options =
                new ArrayList<>(List.of("-Dwarmpool.runtime.type=docker", "-Dwarmpool.runtime.docker.host=" + host));
        options.addAll(managerOptions());
        manager = ManagerProcess.start(
                "redis://:" + PASSWORD + "@127.0.0.1:" + redis.port(), name(), options.toArray(String[]::new));
    }

    @AfterAll
    void cleanUp() throws Exception {
        if (manager != null) {
            manager.kill();
        }
        if (instance != null) {
            for (String id : containers("warmpool.dev/instance=" + instance)) {
                run("docker", "rm", "-f", "-v", id);
            }
            for (String n : run("docker", "network", "ls", "-q", "--filter", "label=warmpool.dev/instance=" + instance)
                    .out()
                    .split("\n")) {
                if (!n.isBlank()) {
                    run("docker", "network", "rm", n.trim());
                }
            }
        }
        if (redis != null) {
            redis.stop();
        }
        finish();
    }

    /** After the tests, their containers and networks gone: removes what a subclass made (an engine it started). */
    void finish() throws Exception {}

    void pool(String type, String command, int minIdle, int maxSize, String template) throws Exception {
        manager.send(
                "PUT",
                "/pools/" + type,
                "{\"command\": " + command + ", \"minIdle\": " + minIdle + ", \"maxSize\": " + maxSize
                        + ", \"template\": {\"image\": \"" + IMAGE + "\"" + template + "}}");
    }

    JsonNode runJob(String type, int waitSeconds) throws Exception {
        String id = manager.send("POST", "/jobs", "{\"type\": \"" + type + "\"}")
                .get("id")
                .asText();
        return manager.get("/jobs/" + id + "?wait=" + waitSeconds);
    }

    String poolLabel(String type) {
        return "warmpool.dev/pool=" + type;
    }

    /** Ids of this test's running containers that carry {@code label}. */
    List<String> containers(String label) throws IOException, InterruptedException {
        Result r = run(
                "docker",
                "ps",
                "-q",
                "--no-trunc",
                "--filter",
                "label=warmpool.dev/instance=" + instance,
                "--filter",
                "label=" + label);
        List<String> out = new ArrayList<>();
        for (String line : r.out().split("\n")) {
            if (!line.isBlank()) {
                out.add(line.trim());
            }
        }
        return out;
    }

    record Result(int exit, String out) {}

    /** A command with DOCKER_HOST naming this fixture's engine. */
    Result run(String... cmd) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        if (host != null) {
            pb.environment().put("DOCKER_HOST", host);
        }
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Result(p.waitFor(), out);
    }
}
