package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The docker runtime's gangs, named volumes and devices against the packaged manager and a real
 * engine: a gang of one parameter server and two workers whose members reach each other by name
 * on the gang's own network (gone with the gang); a claim mounted as a Docker named volume; a
 * GPU pool's device request reaching Docker (with one configured fake device: this machine has
 * no NVIDIA runtime, so Docker refuses to start such a container, and says why).
 */
class DockerGangsIT extends DockerFixture {
    final String volume = "wp-it-" + Long.toHexString(System.nanoTime());

    @Override
    String name() {
        return "docker-gangs-it";
    }

    @Override
    List<String> managerOptions() {
        return List.of("-Dwarmpool.runtime.devices=fake-gpu-0");
    }

    @Override
    void finish() throws Exception {
        run("docker", "volume", "rm", "-f", volume); // once the containers that mounted it are gone
    }

    /** The parameter server: answers every connection on the gang port with its host name. */
    static final String PS = String.join(
            "\n",
            "import socket",
            "s = socket.socket()",
            "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)",
            "s.bind(('0.0.0.0', 2222))",
            "s.listen()",
            "while True:",
            "    c, _ = s.accept()",
            "    c.sendall(socket.gethostname().encode())",
            "    c.close()");

    /** A worker: resolves every other member by the name TF_CONFIG gives, and connects to the parameter server. */
    static final String WORKER = String.join(
            "\n",
            "import json, os, socket, sys, time",
            "cluster = json.loads(os.environ['TF_CONFIG'])['cluster']",
            "me = os.environ['WARMPOOL_GANG_ADDR']",
            "for addr in [a for r in cluster for a in cluster[r] if a != me]:",
            "    print('resolved', addr, socket.gethostbyname(addr.rsplit(':', 1)[0]))",
            "host, port = cluster['ps'][0].rsplit(':', 1)",
            "deadline = time.time() + 60",
            "while True:",
            "    try:",
            "        with socket.create_connection((host, int(port)), timeout=2) as c:",
            "            print('reached', host, 'whose hostname is', c.recv(100).decode())",
            "            break",
            "    except OSError as e:",
            "        if time.time() > deadline:",
            "            print('could not reach', host, e)",
            "            sys.exit(1)",
            "        time.sleep(0.2)");

    @Test
    void aGangOfAParameterServerAndTwoWorkersReachEachOtherByNameOnItsOwnNetwork() throws Exception {
        image(PYTHON_IMAGE, "python3");
        ObjectNode spec = ManagerProcess.JSON.createObjectNode();
        spec.putArray("command").add("python3").add("-u").add("-c").add(WORKER);
        spec.put("minIdle", 1).put("maxSize", 1);
        spec.putObject("template").put("image", PYTHON_IMAGE);
        ObjectNode gang = spec.putObject("gang");
        ObjectNode ps = gang.putObject("ps").put("count", 1);
        ps.putArray("command").add("python3").add("-u").add("-c").add(PS);
        gang.putObject("worker").put("count", 2);
        manager.send("PUT", "/pools/tf", spec.toString());
        await().atMost(Duration.ofSeconds(90))
                .until(() -> manager.get("/pools/tf").at("/status/idle").asInt() == 3);
        assertEquals(3, containers(poolLabel("tf")).size());
        List<String> networks = networks();
        assertEquals(1, networks.size(), "one network for the one gang: " + networks);

        JsonNode ended = runJob("tf", 90);
        assertEquals("SUCCEEDED", ended.get("state").asText(), ended.toString());
        JsonNode members = ended.get("members");
        assertTrue(
                members.get("worker-0").asText().startsWith("SUCCEEDED")
                        && members.get("worker-1").asText().startsWith("SUCCEEDED"),
                "each worker resolved its peers and reached the parameter server by name: " + ended);

        assertTrue(manager.call("DELETE", "/pools/tf", null).statusCode() < 300);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> containers(poolLabel("tf")).isEmpty() && networks().isEmpty());
    }

    @Test
    void aClaimIsADockerNamedVolumeThatOutlivesItsProcessors() throws Exception {
        // jobs write it across containers: as one user the pool names (each container's own uid differs), who
        // owns the volume as an admin prepared it
        Result made = run("docker", "run", "--rm", "-v", volume + ":/data", IMAGE, "chown", "1000:1000", "/data");
        assertEquals(0, made.exit(), made.out());
        String template = ", \"volumes\": [{\"name\": \"data\", \"persistentVolumeClaim\": {\"claimName\": \"" + volume
                + "\"}}], \"volumeMounts\": [{\"name\": \"data\", \"mountPath\": \"/data\"}],"
                + " \"securityContext\": {\"runAsUser\": 1000}";
        pool("vol", "[\"sh\", \"-c\", \"hostname >> /data/seen; wc -l < /data/seen\"]", 1, 1, template);
        JsonNode first = runJob("vol", 60);
        assertEquals("SUCCEEDED", first.get("state").asText(), first.toString());
        assertEquals("1", first.at("/result/logTail").asText().trim());
        String id = containers(poolLabel("vol")).get(0);
        JsonNode mounts = ManagerProcess.JSON
                .readTree(run("docker", "inspect", id).out())
                .get(0)
                .get("Mounts");
        assertTrue(mounts.toString().contains("\"Name\":\"" + volume + "\""), mounts.toString());
        assertEquals(0, run("docker", "kill", id).exit());
        // a replacement container mounts the same volume: what the first wrote is there
        await().atMost(Duration.ofSeconds(60))
                .until(() -> manager.get("/pools/vol").at("/status/idle").asInt() == 1
                        && !containers(poolLabel("vol")).contains(id));
        JsonNode second = runJob("vol", 60);
        assertEquals("2", second.at("/result/logTail").asText().trim(), second.toString());
    }

    @Test
    void aGpuPoolAsksDockerForItsDeviceAndOneAskingMoreThanTheMachineHasIsRefused() throws Exception {
        var tooMany = manager.call(
                "PUT",
                "/pools/gpus",
                "{\"command\": [\"true\"], \"template\": {\"image\": \"" + IMAGE
                        + "\", \"resources\": {\"limits\": {\"nvidia.com/gpu\": \"2\"}}}}");
        assertEquals(400, tooMany.statusCode(), tooMany.body());
        assertTrue(tooMany.body().contains("\"field\":\"template.resources.limits.nvidia.com/gpu\""), tooMany.body());
        assertTrue(tooMany.body().contains("this machine has 1 (fake-gpu-0)"), tooMany.body());

        Path log = Path.of("target", name() + ".log");
        long from = Files.size(log);
        pool("gpu", "[\"true\"]", 1, 1, ", \"resources\": {\"limits\": {\"nvidia.com/gpu\": \"1\"}}");
        // without an NVIDIA runtime Docker takes the request at create and refuses it at start
        await().atMost(Duration.ofSeconds(60))
                .until(() -> Files.readString(log)
                        .substring((int) from)
                        .matches("(?s).*could not start processor \\S+ of pool gpu.*could not select device driver.*"));
        // and the pool says so to whoever looks at it, not only in the manager's log
        await().atMost(Duration.ofSeconds(30))
                .until(() -> manager.get("/pools/gpu")
                        .at("/startError/reason")
                        .asText()
                        .contains("device driver"));
        JsonNode view = manager.get("/pools/gpu");
        assertTrue(view.at("/startError/reason").asText().startsWith("could not start: "), view.toString());
        assertTrue(view.at("/startError/at").asText().matches("\\d{4}-.*Z"), view.toString());
        assertTrue(manager.call("DELETE", "/pools/gpu", null).statusCode() < 300);
    }

    private List<String> networks() throws Exception {
        return List.of(run("docker", "network", "ls", "-q", "--filter", "label=warmpool.dev/instance=" + instance)
                        .out()
                        .split("\n"))
                .stream()
                .filter(s -> !s.isBlank())
                .toList();
    }
}
