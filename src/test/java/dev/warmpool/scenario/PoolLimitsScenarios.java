package dev.warmpool.scenario;

import static dev.warmpool.testing.Api.awaitEnd;
import static dev.warmpool.testing.Api.awaitIdle;
import static dev.warmpool.testing.Api.putPool;
import static dev.warmpool.testing.Api.submit;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.warmpool.agent.room.RoomLimits;
import dev.warmpool.testing.Tokens;
import io.restassured.path.json.JsonPath;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A local pool's {@code resources.limits} hold on its processors' rooms (on this host's cgroups:
 * the scenario needs a root manager on a cgroup v1 or v2 host): a job past its memory is killed, a
 * fork storm stops at the pids bound, and neither takes the manager, Redis or another pool's
 * processors down; the processor takes its next job; its cgroups go with it. Run unsandboxed (a
 * process per job, {@link PoolLimitsTests}) and in bubblewrap rooms ({@link PoolLimitsSandboxedTests}).
 */
public abstract class PoolLimitsScenarios {
    static {
        Tokens.asAdminByDefault();
    }

    static Map<String, Object> pool(Map<String, String> limits, int minIdle, int maxSize) {
        return Map.of(
                "command",
                List.of("sh", "-c"),
                "minIdle",
                minIdle,
                "maxSize",
                maxSize,
                "idleTimeoutSeconds",
                300,
                // the local runtime reads the template's limits; its image names nothing here
                "template",
                Map.of("image", "local", "resources", Map.of("limits", limits)));
    }

    static String run(String type, String script) {
        return submit(Map.of("type", type, "args", List.of(script)));
    }

    /**
     * The processor's cgroup dirs on this host, by its id. A dir that goes while the tree is walked
     * (a processor's cgroups are removed as it ends) is passed over, not an error.
     */
    static List<Path> cgroupsOf(String processorId) throws IOException {
        List<Path> found = new ArrayList<>();
        Files.walkFileTree(Path.of("/sys/fs/cgroup"), Set.of(), 8, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                if (dir.getFileName() != null && dir.getFileName().toString().equals(processorId)) {
                    found.add(dir);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                return FileVisitResult.CONTINUE;
            }
        });
        return found;
    }

    @Test
    public void aJobPastItsPoolsMemoryOrPidsFailsAndTheRestOfTheHostWorksOn() throws Exception {
        assumeTrue(!RoomLimits.host().startsWith("rlimits"), RoomLimits.host());
        putPool("lim-room", pool(Map.of("memory", "64Mi", "pids", "32", "cpu", "1"), 1, 1));
        putPool("lim-free", pool(Map.of(), 1, 2));
        awaitIdle("lim-room", 1);
        awaitIdle("lim-free", 1);

        List<String> others = new ArrayList<>();
        others.add(run("lim-free", "echo fine"));
        // 300 MB written, 64 MiB allowed: the kernel kills it
        JsonPath hog = awaitEnd(run("lim-room", "/usr/bin/python3 -c \"b = b'x' * (300 << 20); print(len(b))\""));
        others.add(run("lim-free", "echo fine"));
        assertEquals("FAILED", hog.getString("state"), hog.prettify());
        assertEquals(137, hog.getInt("result.exitCode"), hog.prettify());

        // 200 sleepers asked for, 32 processes allowed (the room's own count): the shell cannot fork
        JsonPath storm =
                awaitEnd(run("lim-room", "for i in $(seq 200); do sleep 60 >/dev/null 2>&1 & done; echo all-started"));
        others.add(run("lim-free", "echo fine"));
        assertEquals("FAILED", storm.getString("state"), storm.prettify());
        assertTrue(storm.getString("result.logTail").contains("fork"), storm.getString("result.logTail"));

        given().get("/q/health").then().statusCode(200).body("status", equalTo("UP"));
        for (String id : others) {
            assertEquals("SUCCEEDED", awaitEnd(id).getString("state"));
        }
        JsonPath next = awaitEnd(run("lim-room", "echo after"));
        assertEquals("SUCCEEDED", next.getString("state"), next.prettify());
        assertEquals(storm.getString("processor"), next.getString("processor"), "the same processor goes on");
        assertEquals(hog.getString("processor"), next.getString("processor"));

        String processor = next.getString("processor");
        assertTrue(!cgroupsOf(processor).isEmpty(), "the room runs in the processor's cgroups");
        given().delete("/pools/lim-room").then().statusCode(202);
        given().delete("/pools/lim-free").then().statusCode(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> cgroupsOf(processor).isEmpty());
    }

    @Test
    public void limitNamesTheLocalRuntimeDoesNotKnowAreRefusedByName() {
        given().contentType("application/json")
                .body(pool(Map.of("ephemeral-storage", "1Gi"), 0, 1))
                .put("/pools/lim-bad")
                .then()
                .statusCode(400)
                .contentType("application/problem+json")
                .body("field", equalTo("template.resources.limits.ephemeral-storage"))
                .body("detail", containsString("cpu, memory, pids"));
        given().contentType("application/json")
                .body(pool(Map.of("pids", "4"), 0, 1))
                .put("/pools/lim-bad")
                .then()
                .statusCode(400)
                .body("field", equalTo("template.resources.limits.pids"))
                .body("detail", containsString("at least 16"));
        given().contentType("application/json")
                .body(pool(Map.of("memory", "lots"), 0, 1))
                .put("/pools/lim-bad")
                .then()
                .statusCode(400)
                .body("field", equalTo("template.resources.limits.memory"));
    }
}
