package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.store.RedisTls;
import dev.warmpool.testing.Ci;
import dev.warmpool.testing.Impostor;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * The run command's own Redis, killed under a running manager: a server that takes its port in
 * the meantime (another local user, a job) hears neither the manager's password nor any agent's,
 * and once the port is free again the manager has its Redis back and jobs run as before.
 */
class OwnRedisIT {
    LocalInstall install;

    @AfterEach
    void tearDown() throws Exception {
        if (install != null) {
            install.close();
            Process ps = new ProcessBuilder(
                            "docker",
                            "ps",
                            "-aq",
                            "--filter",
                            "label=warmpool.dev/instance=127.0.0.1:" + install.redisPort)
                    .start();
            for (String id : new String(ps.getInputStream().readAllBytes()).split("\\s+")) {
                if (!id.isBlank()) {
                    new ProcessBuilder("docker", "rm", "-f", "-v", id).start().waitFor();
                }
            }
        }
    }

    JsonNode runJob(ManagerProcess m, String type) throws Exception {
        String id = m.send("POST", "/jobs", "{\"type\": \"" + type + "\"}")
                .get("id")
                .asText();
        await().atMost(Duration.ofSeconds(90))
                .ignoreExceptions()
                .until(() -> !List.of("QUEUED", "ASSIGNED", "RUNNING")
                        .contains(m.get("/jobs/" + id + "?wait=5").get("state").asText()));
        return m.get("/jobs/" + id);
    }

    static void signal(long pid, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
        assertEquals(0, kill.waitFor());
    }

    @Test
    void aServerThatTakesThePortOfItsDeadRedisHearsNoPasswordAndTheManagerStartsItsRedisAgain() throws Exception {
        install = new LocalInstall();
        ManagerProcess m = install.start(List.of("-Dwarmpool.runtime.local.sandbox=none"), Map.of());
        m.send("PUT", "/pools/echo", "{\"command\": [\"sh\", \"-c\", \"echo hi\"], \"minIdle\": 1, \"maxSize\": 1}");
        assertEquals("SUCCEEDED", runJob(m, "echo").get("state").asText());

        Path dir = install.home.resolve(".warmpool/redis");
        String password = Files.readString(dir.resolve("password")).trim();
        RedisTls tls = RedisTls.ensure(dir);
        String agentPassword;
        try (Jedis jedis = new Jedis(
                new HostAndPort("127.0.0.1", install.redisPort),
                DefaultJedisClientConfig.builder()
                        .ssl(true)
                        .sslSocketFactory(tls.pinned().socketFactory())
                        .password(password)
                        .build())) {
            agentPassword = jedis.hget(KeySchema.AGENTS, "echo");
        }
        assertTrue(agentPassword != null && !agentPassword.isEmpty(), "the pool's agent user");

        // the manager held still so that the impostor is surely first on the port
        ProcessHandle redis = install.redis().orElseThrow();
        signal(m.process.pid(), "STOP");
        AtomicReference<Impostor> taken = new AtomicReference<>();
        try {
            redis.destroyForcibly();
            // its listener is gone once it is killed, though its stopped parent has not reaped it yet
            await().atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .until(() -> taken.compareAndSet(null, Impostor.plain(install.redisPort)));
        } finally {
            signal(m.process.pid(), "CONT");
        }
        Impostor impostor = taken.get();
        try (impostor) {
            // the manager's client, its restart check and the idle agent all try the port
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> impostor.connections() >= 3 && install.log().contains("could not be started again"));
            String heard = impostor.heard();
            assertFalse(heard.contains(password), "it heard the manager's password");
            assertFalse(heard.contains(agentPassword), "it heard the agent's password");
            assertFalse(heard.contains("AUTH"), heard);
        }

        await().atMost(Duration.ofSeconds(60)).until(() -> install.log().contains("own Redis is back on port"));
        assertNotEquals(redis.pid(), install.redis().orElseThrow().pid(), "a new redis-server");
        assertEquals("SUCCEEDED", runJob(m, "echo").get("state").asText(), install.log());
    }

    @Test
    void containersReachTheOwnRedisThroughThePinnedCertificate() throws Exception {
        Process info = new ProcessBuilder("docker", "info").start();
        info.getInputStream().transferTo(OutputStream.nullOutputStream());
        Ci.require(info.waitFor() == 0, "no docker engine answers", ".ci/run starts dockerd");
        install = new LocalInstall();
        ManagerProcess m = install.start(List.of("-Dwarmpool.runtime.type=docker"), Map.of());
        m.send(
                "PUT",
                "/pools/boxed",
                "{\"command\": [\"sh\", \"-c\", \"echo hi\"], \"minIdle\": 1, \"maxSize\": 1,"
                        + " \"template\": {\"image\": \"" + DockerFixture.IMAGE + "\"}}");
        JsonNode job = runJob(m, "boxed");
        assertEquals("SUCCEEDED", job.get("state").asText(), job + "\n" + install.log());
        assertTrue(install.log().contains("reach Redis at rediss://"), "containers use TLS:\n" + install.log());
    }
}
