package dev.warmpool.scenario;

import static dev.warmpool.testing.Api.awaitEnd;
import static dev.warmpool.testing.Api.millis;
import static dev.warmpool.testing.Api.pool;
import static dev.warmpool.testing.Api.putPool;
import static dev.warmpool.testing.Api.submit;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.testing.Tokens;
import io.restassured.path.json.JsonPath;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Warm gangs end to end: a pool of one parameter server and two workers (each member its own
 * agent process), on a real redis-server, over HTTP. Each member's process writes what it was
 * given to a file named after the job and its role, so the test can read every member's view.
 */
public abstract class GangScenarios {
    static {
        Tokens.asAdminByDefault();
    }

    static final ObjectMapper JSON = new ObjectMapper();

    /** What a member writes: role, index, TF_CONFIG, RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT, its agent's pid. */
    static String member(Path out, String tail) {
        return "f=" + out + "/$WARMPOOL_JOB_ID-$WARMPOOL_GANG_ROLE-$WARMPOOL_GANG_INDEX; "
                + "printf '%s\\n' \"$WARMPOOL_GANG_ROLE\" \"$WARMPOOL_GANG_INDEX\" \"$TF_CONFIG\" \"$RANK\" \"$WORLD_SIZE\" "
                + "\"$MASTER_ADDR\" \"$MASTER_PORT\" \"$PPID\" \"$$\" > $f.tmp && mv $f.tmp $f; " + tail;
    }

    static Map<String, Object> gangPool(Path out, String workerTail, int maxAttempts) {
        Map<String, Object> gang = Map.of(
                "ps", Map.of("count", 1, "command", List.of("sh", "-c", member(out, "exec sleep 600"), "ps")),
                "worker", Map.of("count", 2));
        return new HashMap<>(Map.of(
                "command",
                List.of("sh", "-c", member(out, workerTail), "worker"),
                "minIdle",
                1,
                "maxSize",
                1,
                "gang",
                gang,
                // locally the members meet on the host's loopback
                "network",
                "host"));
    }

    static List<String> lines(Path out, String job, String member) throws Exception {
        return Files.readAllLines(out.resolve(job + "-" + member));
    }

    static void awaitIdleGang(String type) {
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            JsonPath p = pool(type);
            return "IDLE".equals(p.getString("gangs[0].state"))
                    && p.getList("processors.state").stream().allMatch("IDLE"::equals);
        });
    }

    @Test
    public void aGangJobRunsOnEveryMemberWithTheFrameworksVariablesAndThenStopsTheParameterServer() throws Exception {
        Path out = Files.createTempDirectory("gang");
        putPool("gang-vars", gangPool(out, "sleep \"${1:-0}\"", 1));
        awaitIdleGang("gang-vars");
        assertEquals(3, pool("gang-vars").getList("processors").size(), "one gang of three members");
        String id = submit(Map.of("type", "gang-vars", "args", List.of("0.3")));
        JsonPath job = awaitEnd(id);
        assertEquals("SUCCEEDED", job.getString("state"), job.prettify());
        assertEquals(pool("gang-vars").getString("gangs[0].id"), job.getString("processor"));

        List<String> ps = lines(out, id, "ps-0"), w0 = lines(out, id, "worker-0"), w1 = lines(out, id, "worker-1");
        JsonNode tf = JSON.readTree(w1.get(2));
        assertEquals("worker", tf.at("/task/type").asText());
        assertEquals(1, tf.at("/task/index").asInt());
        assertEquals(1, tf.at("/cluster/ps").size());
        assertEquals(2, tf.at("/cluster/worker").size());
        assertEquals("ps", JSON.readTree(ps.get(2)).at("/task/type").asText());
        assertEquals(tf.get("cluster"), JSON.readTree(w0.get(2)).get("cluster"), "every member sees the same cluster");
        List<String> addrs = List.of(
                tf.at("/cluster/ps/0").asText(),
                tf.at("/cluster/worker/0").asText(),
                tf.at("/cluster/worker/1").asText());
        assertEquals(3, new HashSet<>(addrs).size(), "three addresses: " + addrs);
        addrs.forEach(a -> assertTrue(a.matches("127\\.0\\.0\\.1:\\d+"), a));
        assertEquals(List.of("0", "2"), List.of(w0.get(3), w0.get(4)), "worker 0 is rank 0 of 2");
        assertEquals(List.of("1", "2"), List.of(w1.get(3), w1.get(4)));
        assertEquals("", ps.get(3), "a parameter server has no rank");
        assertEquals(addrs.get(1), w1.get(5) + ":" + w1.get(6), "MASTER_ADDR:MASTER_PORT is rank 0");

        // the job ended with the workers; the parameter server's process was stopped, not waited for
        assertTrue(millis(job, "finishedAt") - millis(job, "startedAt") < 30_000);
        long psPid = Long.parseLong(ps.get(8));
        await().atMost(Duration.ofSeconds(15))
                .until(() -> ProcessHandle.of(psPid).map(h -> !h.isAlive()).orElse(true));
        await().atMost(Duration.ofSeconds(15))
                .until(() -> awaitEnd(id).getMap("members").size() == 3);
        Map<String, String> members = awaitEnd(id).getMap("members");
        assertTrue(members.get("ps-0").startsWith("CANCELLED"), members.toString());
        assertTrue(members.get("worker-0").startsWith("SUCCEEDED")
                && members.get("worker-1").startsWith("SUCCEEDED"));
        awaitIdleGang("gang-vars");
    }

    @Test
    public void twoGangJobsOnAPoolOfOneGangRunOneAfterTheOther() throws Exception {
        Path out = Files.createTempDirectory("gang");
        putPool("gang-seq", gangPool(out, "sleep \"${1:-0}\"", 1));
        String a = submit(Map.of("type", "gang-seq", "args", List.of("0.5")));
        String b = submit(Map.of("type", "gang-seq", "args", List.of("0.5")));
        JsonPath first = awaitEnd(a), second = awaitEnd(b);
        assertEquals("SUCCEEDED", first.getString("state"));
        assertEquals("SUCCEEDED", second.getString("state"));
        assertEquals(first.getString("processor"), second.getString("processor"), "the same warm gang");
        assertTrue(
                millis(second, "startedAt") >= millis(first, "finishedAt"), "the second started after the first ended");
        // and every member of the second was a member of the same gang: the same agent processes
        for (String m : List.of("ps-0", "worker-0", "worker-1")) {
            assertEquals(lines(out, a, m).get(7), lines(out, b, m).get(7), m + " ran both on one agent");
        }
    }

    @Test
    public void killingOneMemberRequeuesTheJobAndAFreshGangRunsIt() throws Exception {
        Path out = Files.createTempDirectory("gang");
        // the first attempt hangs; on the second (its marker exists) the workers finish at once
        String tail = "m=" + out + "/attempt-$WARMPOOL_JOB_ID-$WARMPOOL_GANG_INDEX; "
                + "if [ -e $m ]; then exit 0; fi; touch $m; sleep 120";
        putPool("gang-loss", gangPool(out, tail, 2));
        awaitIdleGang("gang-loss");
        String gang = pool("gang-loss").getString("gangs[0].id");
        String id = submit(Map.of("type", "gang-loss", "maxAttempts", 2));
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(out.resolve(id + "-worker-1")));
        long agent = Long.parseLong(lines(out, id, "worker-1").get(7));
        ProcessHandle.of(agent).ifPresent(ProcessHandle::destroyForcibly);

        JsonPath job = awaitEnd(id);
        assertEquals("SUCCEEDED", job.getString("state"), job.prettify());
        assertEquals(2, job.getInt("attempts"));
        assertNotEquals(gang, job.getString("processor"), "a new gang ran the second attempt");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> pool("gang-loss").getList("gangs.id").equals(List.of(job.getString("processor"))));
        assertFalse(
                pool("gang-loss").getList("processors.id").stream().anyMatch(p -> ((String) p).startsWith(gang)),
                "every member of the broken gang is gone");
    }
}
