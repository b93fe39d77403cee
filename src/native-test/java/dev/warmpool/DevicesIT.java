package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.store.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Accelerators on one machine, on the local runtime with two configured fake devices
 * ({@code warmpool.runtime.devices=fake-a,fake-b}): each processor of a 1-GPU pool gets a device
 * of its own in {@code CUDA_VISIBLE_DEVICES}, a third processor waits (and the log says why), a
 * restarted manager reads back who holds what from its agents, and a pool gone frees its devices.
 */
class DevicesIT {
    RedisServer redis = RedisServer.ephemeral();
    List<ManagerProcess> managers = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        ManagerProcess.tearDown(redis, managers);
    }

    ManagerProcess manager() throws Exception {
        ManagerProcess m = ManagerProcess.start(redis.url(), "devices-it", "-Dwarmpool.runtime.devices=fake-a,fake-b");
        managers.add(m);
        return m;
    }

    static String pool(int gpus, int minIdle) {
        return "{\"command\": [\"sh\", \"-c\", \"echo cuda=$CUDA_VISIBLE_DEVICES; sleep ${1:-0}\", \"gpu-job\"], \"minIdle\": "
                + minIdle + ", \"maxSize\": 3, \"template\": {\"image\": \"local\", \"resources\": "
                + "{\"limits\": {\"nvidia.com/gpu\": \"" + gpus + "\"}}}}";
    }

    static int processors(ManagerProcess m, String type) throws Exception {
        return m.get("/pools/" + type).get("processors").size();
    }

    @Test
    void eachProcessorHasItsOwnDeviceAThirdWaitsAndARestartedManagerKnowsWhoHoldsWhat() throws Exception {
        Path log = Path.of("target", "devices-it.log");
        long from = Files.exists(log) ? Files.size(log) : 0;
        ManagerProcess m = manager();

        var tooMany = m.call("PUT", "/pools/greedy", pool(3, 1));
        assertEquals(400, tooMany.statusCode(), tooMany.body());
        assertTrue(tooMany.body().contains("\"field\":\"template.resources.limits.nvidia.com/gpu\""), tooMany.body());
        assertTrue(tooMany.body().contains("this machine has 2 (fake-a,fake-b)"), tooMany.body());
        assertTrue(tooMany.body().contains("\"available\":2"), tooMany.body());
        var half = m.call("PUT", "/pools/half", pool(0, 1).replace("\"0\"", "\"0.5\""));
        assertEquals(400, half.statusCode(), half.body());
        // the runtime sets CUDA_VISIBLE_DEVICES to each processor's own: neither the pool nor its jobs may
        var ownEnv = m.call(
                "PUT",
                "/pools/shared",
                pool(1, 1).replace("\"minIdle\"", "\"env\": {\"CUDA_VISIBLE_DEVICES\": \"0,1\"}, \"minIdle\""));
        assertEquals(400, ownEnv.statusCode(), ownEnv.body());
        assertTrue(ownEnv.body().contains("\"field\":\"env.CUDA_VISIBLE_DEVICES\""), ownEnv.body());
        var jobsSet = m.call(
                "PUT", "/pools/shared", pool(1, 1).replace("\"minIdle\"", "\"jobEnv\": [\"CUDA_*\"], \"minIdle\""));
        assertEquals(400, jobsSet.statusCode(), jobsSet.body());
        assertTrue(jobsSet.body().contains("\"field\":\"jobEnv\""), jobsSet.body());

        m.send("PUT", "/pools/gpu", pool(1, 3));
        await().atMost(Duration.ofSeconds(60))
                .until(() -> m.get("/pools/gpu").at("/status/idle").asInt() == 2);
        // minIdle 3, but two devices: the third processor waits, and says why
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> processors(m, "gpu") == 2);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> Files.readString(log)
                        .substring((int) from)
                        .contains("pool gpu waits for devices: it wants 1 more processor(s) of 1 nvidia.com/gpu "
                                + "each; the machine has 2, 0 free, enough for 0"));
        assertEquals(Set.of("fake-a", "fake-b"), devicesSeen(m, "gpu"));

        // a new manager finds the agents, and from their command lines which devices they hold
        m.kill();
        ManagerProcess again = manager();
        await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(10)).until(() -> processors(again, "gpu") == 2);
        assertEquals(Set.of("fake-a", "fake-b"), devicesSeen(again, "gpu"));

        // a pool gone frees its devices for another
        assertTrue(again.call("DELETE", "/pools/gpu", null).statusCode() < 300);
        again.send("PUT", "/pools/next", pool(2, 1));
        await().atMost(Duration.ofSeconds(60))
                .until(() -> again.get("/pools/next").at("/status/idle").asInt() == 1);
        JsonNode one = run(again, "next", 0);
        assertEquals("cuda=fake-a,fake-b", one.at("/result/logTail").asText().trim());
    }

    /** Two jobs at once on the pool's two processors: the devices each saw. */
    static Set<String> devicesSeen(ManagerProcess m, String type) throws Exception {
        String a = m.send("POST", "/jobs", "{\"type\": \"" + type + "\", \"args\": [\"2\"]}")
                .get("id")
                .asText();
        String b = m.send("POST", "/jobs", "{\"type\": \"" + type + "\", \"args\": [\"2\"]}")
                .get("id")
                .asText();
        Set<String> seen = new HashSet<>();
        Set<String> processors = new HashSet<>();
        for (String id : List.of(a, b)) {
            JsonNode ended = m.get("/jobs/" + id + "?wait=60");
            assertEquals("SUCCEEDED", ended.get("state").asText(), ended.toString());
            seen.add(ended.at("/result/logTail").asText().trim().replace("cuda=", ""));
            processors.add(ended.get("processor").asText());
        }
        assertEquals(2, processors.size(), "the two jobs ran at once, one on each processor");
        return seen;
    }

    static JsonNode run(ManagerProcess m, String type, int seconds) throws Exception {
        String id = m.send("POST", "/jobs", "{\"type\": \"" + type + "\", \"args\": [\"" + seconds + "\"]}")
                .get("id")
                .asText();
        JsonNode ended = m.get("/jobs/" + id + "?wait=60");
        assertEquals("SUCCEEDED", ended.get("state").asText(), ended.toString());
        return ended;
    }
}
