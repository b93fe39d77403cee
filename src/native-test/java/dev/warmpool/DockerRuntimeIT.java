package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * The docker runtime against the packaged manager and a real dockerd: warm processors are
 * containers of a base image that has no Java (debootstrap's, src/main/docker/base-image.sh),
 * the agent comes from its bundle mounted at /opt/warmpool, and Redis (with a password: agents
 * connect as their pool's ACL user) listens on loopback and on the docker bridge's gateway.
 * Outside CI, a machine without a dockerd skips these tests; in CI (.ci/run starts one) they run.
 * The isolation attacks every container runtime must hold against are {@link ContainerIsolationScenarios}.
 */
class DockerRuntimeIT extends DockerFixture implements ContainerIsolationScenarios {
    @Override
    String name() {
        return "docker-runtime-it";
    }

    @Test
    void aPoolOnAnImageWithoutJavaRunsItsJobsInsideItsContainer() throws Exception {
        // the output, not the exit code: Podman's API loses a --rm container's exit code
        assertEquals(
                "no-java",
                run("docker", "run", "--rm", IMAGE, "sh", "-c", "command -v java || echo no-java")
                        .out()
                        .trim(),
                "the image has no Java");
        pool("os", "[\"sh\", \"-c\", \"cat /etc/os-release; echo host=$(hostname)\"]", 1, 1, "");
        JsonNode ended = runJob("os", 60);
        assertEquals("SUCCEEDED", ended.get("state").asText(), ended.toString());
        String log = ended.at("/result/logTail").asText();
        assertTrue(log.contains("PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\""), log);
        List<String> ids = containers(poolLabel("os"));
        assertEquals(1, ids.size());
        assertTrue(
                log.contains("host=" + ids.get(0).substring(0, 12)),
                "the job ran in container " + ids.get(0) + ": " + log);
    }

    @Test
    void thirtyJobsReuseOneWarmContainer() throws Exception {
        pool("reuse", "[\"sh\", \"-c\", \"hostname\"]", 1, 1, "");
        Set<String> hosts = new HashSet<>();
        Set<String> processors = new HashSet<>();
        for (int i = 0; i < 30; i++) {
            JsonNode ended = runJob("reuse", 60);
            assertEquals("SUCCEEDED", ended.get("state").asText(), ended.toString());
            hosts.add(ended.at("/result/logTail").asText().trim());
            processors.add(ended.get("processor").asText());
        }
        assertEquals(1, hosts.size(), hosts.toString());
        assertEquals(1, processors.size(), processors.toString());
        assertEquals(1, containers(poolLabel("reuse")).size());
    }

    @Test
    void aKilledBusyContainerLosesItsProcessorAndItsJobFinishesOnAReplacement() throws Exception {
        pool("killed", "[\"sh\", \"-c\", \"sleep 4; echo done on $(hostname)\"]", 1, 1, "");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> manager.get("/pools/killed").at("/status/idle").asInt() == 1);
        String first = containers(poolLabel("killed")).get(0);
        String id = manager.send("POST", "/jobs", "{\"type\": \"killed\", \"maxAttempts\": 3}")
                .get("id")
                .asText();
        await().atMost(Duration.ofSeconds(30))
                .until(() ->
                        "RUNNING".equals(manager.get("/jobs/" + id).get("state").asText()));
        assertEquals(0, run("docker", "kill", first).exit());

        JsonNode ended = manager.get("/jobs/" + id + "?wait=90");
        assertEquals("SUCCEEDED", ended.get("state").asText(), ended.toString());
        String log = ended.at("/result/logTail").asText();
        assertFalse(log.contains(first.substring(0, 12)), "finished on a replacement, not the killed one: " + log);
        List<String> now = containers(poolLabel("killed"));
        assertFalse(now.contains(first), "the killed container is removed");
        assertTrue(log.contains(now.get(0).substring(0, 12)), log);
    }

    @Test
    void containersOutliveAKilledManagerAndAreAdoptedNotDuplicated() throws Exception {
        pool("adopted", "[\"sh\", \"-c\", \"hostname\"]", 1, 1, "");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> manager.get("/pools/adopted").at("/status/idle").asInt() == 1);
        List<String> before = containers(poolLabel("adopted"));
        String processor = manager.get("/pools/adopted").at("/processors/0/id").asText();
        manager.kill();
        assertEquals(before, containers(poolLabel("adopted")), "the container outlives its manager");

        startManager();
        // several reconcile passes (1 s each) and well past the orphan grace: the same one container throughout
        await().during(Duration.ofSeconds(6))
                .atMost(Duration.ofSeconds(10))
                .until(() -> containers(poolLabel("adopted")).equals(before));
        JsonNode ended = runJob("adopted", 60);
        assertEquals(processor, ended.get("processor").asText());
        assertEquals(
                before.get(0).substring(0, 12),
                ended.at("/result/logTail").asText().trim());
    }

    @Test
    void deletingAPoolRemovesItsContainers() throws Exception {
        pool("deleted", "[\"sh\", \"-c\", \"true\"]", 2, 2, "");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> containers(poolLabel("deleted")).size() == 2);
        assertTrue(manager.call("DELETE", "/pools/deleted", null).statusCode() < 300);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> containers(poolLabel("deleted")).isEmpty());
    }

    @Test
    void limitsAndTheRestrictedProfileShowInDockerInspectAndTheRedisPasswordDoesNot() throws Exception {
        pool(
                "inspected",
                "[\"sh\", \"-c\", \"cat /run/warmpool/secret/redis-url 2>/dev/null; id -u; grep CapEff /proc/self/status\"]",
                1,
                1,
                ", \"resources\": {\"limits\": {\"cpu\": \"500m\", \"memory\": \"256Mi\"}}, "
                        + "\"securityContext\": {\"runAsUser\": 1000, \"readOnlyRootFilesystem\": true}");
        JsonNode ended = runJob("inspected", 60);
        assertEquals("SUCCEEDED", ended.get("state").asText(), ended.toString());
        assertEquals(
                "1000\nCapEff:\t0000000000000000",
                ended.at("/result/logTail").asText().trim(),
                "its jobs run as the pool's runAsUser without any capability; the URL file is gone");
        String id = containers(poolLabel("inspected")).get(0);
        JsonNode c =
                ManagerProcess.JSON.readTree(run("docker", "inspect", id).out()).get(0);
        JsonNode host = c.get("HostConfig");
        assertEquals(500_000_000L, host.get("NanoCpus").asLong());
        assertEquals(256L * 1024 * 1024, host.get("Memory").asLong());
        if (name().startsWith("docker")) {
            assertEquals("[\"ALL\"]", host.get("CapDrop").toString()); // Podman lists the ones it dropped
            Set<String> added = new HashSet<>();
            host.get("CapAdd").forEach(cap -> added.add(cap.asText().replaceFirst("^CAP_", "")));
            assertEquals(
                    Set.of("CHOWN", "DAC_OVERRIDE", "FOWNER", "SETUID", "SETGID", "KILL"),
                    added,
                    "the agent's, no more");
        }
        assertEquals("0:0", c.get("Config").get("User").asText(), "the agent is root in its container");
        for (String tmp : List.of("/tmp", "/var/tmp")) {
            assertTrue(host.get("Tmpfs").has(tmp), "a tmpfs the room wipes: " + host.get("Tmpfs"));
        }
        assertTrue(host.get("SecurityOpt").toString().contains("no-new-privileges"), host.toString());
        assertFalse(host.get("Privileged").asBoolean());
        assertTrue(host.get("ReadonlyRootfs").asBoolean());
        assertEquals("bridge", host.get("NetworkMode").asText());
        // its own PIDs: Docker says "" (or default), Podman "private"; never "host" or another container's
        assertTrue(
                Set.of("", "default", "private").contains(host.get("PidMode").asText()),
                host.get("PidMode").asText());
        String everything = c.toString();
        assertFalse(everything.contains(PASSWORD), "the manager's Redis password is nowhere in docker inspect");
        assertFalse(
                c.get("Config").get("Env").toString().contains("redis://"),
                c.get("Config").get("Env").toString());
        assertFalse(everything.contains("wp-agent-inspected:"), "nor the agent's Redis user and password");
        assertFalse(everything.contains("docker.sock"), "no Docker socket inside");
    }

    @Test
    void aPoolWithoutAnImageOrWithAHostOrConfigMapVolumeIsRefusedWithAProblem() throws Exception {
        var noImage = manager.call("PUT", "/pools/no-image", "{\"command\": [\"true\"]}");
        assertTrue(
                noImage.statusCode() == 400 || noImage.statusCode() == 422,
                noImage.statusCode() + " " + noImage.body());
        assertTrue(noImage.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"));
        assertTrue(
                noImage.body().contains("\"field\":\"template\"")
                        && noImage.body().contains("image"),
                noImage.body());
        var hostPath = manager.call(
                "PUT",
                "/pools/host-path",
                "{\"command\": [\"true\"], \"template\": {\"image\": \"" + IMAGE
                        + "\", \"volumes\": [{\"name\": \"etc\", \"hostPath\": {\"path\": \"/etc\"}}]}}");
        assertTrue(
                hostPath.statusCode() >= 400 && hostPath.statusCode() < 500,
                hostPath.statusCode() + " " + hostPath.body());
        assertTrue(containers(poolLabel("host-path")).isEmpty());
        var configMap = manager.call(
                "PUT",
                "/pools/config-map",
                "{\"command\": [\"true\"], \"template\": {\"image\": \"" + IMAGE
                        + "\", \"volumes\": [{\"name\": \"c\", \"configMap\": {\"name\": \"c\"}}]}}");
        assertEquals(400, configMap.statusCode(), configMap.body());
        assertTrue(configMap.body().contains("persistentVolumeClaim"), configMap.body());
    }

    @Test
    void aContainerWhoseAgentExitsIsReplacedAndItsLastOutputLogged() throws Exception {
        // a JVM option the agent's JVM refuses: it exits 1 at once, in every container of the pool
        Path log = Path.of("target", name() + ".log");
        long from = Files.size(log); // the log file is appended to, run after run: only what comes now
        Callable<String> since = () -> Files.readString(log).substring((int) from);
        pool("crashing", "[\"true\"]", 1, 1, ", \"env\": {\"JAVA_TOOL_OPTIONS\": \"-XX:+NoSuchOptionForTheIT\"}");
        await().atMost(Duration.ofSeconds(60))
                .until(
                        () -> since.call()
                                .matches(
                                        "(?s).*pool crashing: its container \\w+ is exited \\(Exited \\(1\\).*its last output:.*NoSuchOptionForTheIT.*"));
        // each exited container is removed and another started in its place
        await().atMost(Duration.ofSeconds(60))
                .until(() -> since.call().split("processor \\w+ of pool crashing: its container", -1).length > 2);
        assertTrue(manager.call("DELETE", "/pools/crashing", null).statusCode() < 300);
    }

    @Test
    void theAgentImageBuildsFromTheBaseWithoutARegistryAndItsAgentRuns() throws Exception {
        String tag = "warmpool-agent:it-" + Long.toHexString(System.nanoTime());
        Result build = run(
                "docker",
                "build",
                "-q",
                "-f",
                "src/main/docker/Dockerfile.agent",
                "--build-arg",
                "BASE=" + IMAGE,
                "-t",
                tag,
                "target/warmpool-agent-bundle");
        try {
            assertEquals(0, build.exit(), build.out());
            // no pool to serve: the agent's JVM starts (as the image's user) and says what it lacks
            Result agent = run(
                    "docker",
                    "run",
                    "--rm",
                    tag,
                    "sh",
                    "-c",
                    "id -u; command -v wp-room; /warmpool/bin/warmpool-agent");
            // and the room's init where a built-in agent's runtime says it is (WARMPOOL_ROOM_INIT)
            assertTrue(agent.out().startsWith("65532\n/usr/local/bin/wp-room\n"), agent.out());
            assertTrue(agent.out().contains("WARMPOOL_REDIS_URL is not set"), agent.out());
        } finally {
            run("docker", "rmi", "-f", tag);
        }
    }

    /** A worker that answers each job with its own pid: the same pid for every job means one warm process. */
    static final String WORKER = String.join(
            "\n",
            "import sys, json, os",
            "for line in sys.stdin:",
            "    job = json.loads(line)",
            "    print(json.dumps({'status': 'SUCCEEDED', 'metrics': {'pid': os.getpid(), 'x': job['config'].get('x', 0)}}), flush=True)");

    @Test
    void aPersistentPythonWorkerInAContainerServesJobAfterJob() throws Exception {
        image(PYTHON_IMAGE, "python3");
        var spec = ManagerProcess.JSON.createObjectNode();
        spec.putArray("command").add("python3").add("-u").add("-c").add(WORKER);
        spec.put("worker", "persistent").put("minIdle", 1).put("maxSize", 1);
        spec.putObject("template").put("image", PYTHON_IMAGE);
        manager.send("PUT", "/pools/py", spec.toString());
        Set<String> pids = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            String id = manager.send("POST", "/jobs", "{\"type\": \"py\", \"config\": {\"x\": " + i + "}}")
                    .get("id")
                    .asText();
            JsonNode ended = manager.get("/jobs/" + id + "?wait=60");
            assertEquals("SUCCEEDED", ended.get("state").asText(), ended.toString());
            assertEquals(i, ended.at("/result/metrics/x").asInt(), ended.toString());
            pids.add(ended.at("/result/metrics/pid").asText());
        }
        assertEquals(1, pids.size(), "one worker process served all five: " + pids);
        assertEquals(1, containers(poolLabel("py")).size());
    }
}
