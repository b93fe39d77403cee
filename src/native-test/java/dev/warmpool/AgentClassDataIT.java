package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.runtime.local.LocalAgents;
import dev.warmpool.store.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The packaged manager makes a class-data archive (JDK 25 and later: an AOT cache) of the agent jar
 * once it is up, and the agents it starts afterwards map it (so their JVMs start about twice as fast).
 */
class AgentClassDataIT {
    RedisServer redis = RedisServer.ephemeral();
    ManagerProcess manager;

    @AfterEach
    void cleanUp() throws InterruptedException {
        ManagerProcess.tearDown(redis, Collections.singletonList(manager));
    }

    static boolean archiveExists(Path dir) throws Exception {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.anyMatch(f -> f.getFileName().toString().matches("agent-[0-9a-f]+\\.(jsa|aot)"));
        }
    }

    @Test
    void agentsStartedAfterTheArchiveExistsMapIt() throws Exception {
        Path dir = Path.of("target", "warmpool-test", "cds");
        if (Files.isDirectory(dir)) {
            // an archive of an agent jar built before this one is not the one agents will map
            try (Stream<Path> old = Files.list(dir)) {
                for (Path f :
                        old.filter(f -> f.toString().matches(".*\\.(jsa|aot)")).toList()) {
                    Files.delete(f);
                }
            }
        }
        manager = ManagerProcess.start(redis.url(), "agent-class-data-it");
        await().atMost(Duration.ofSeconds(60)).until(() -> archiveExists(dir));
        manager.send("PUT", "/pools/cds", "{\"command\": [\"true\"], \"minIdle\": 1, \"maxSize\": 1}");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> manager.get("/pools/cds").at("/status/idle").asInt() == 1);
        String processor = manager.get("/pools/cds").at("/processors/0/id").asText();
        long pid = LocalAgents.pidOf(redis.url(), processor).orElseThrow();
        String cmdline = Files.readString(Path.of("/proc", Long.toString(pid), "cmdline"));
        // JDK 25 and later: the AOT cache instead of the class-data archive
        assertTrue(
                cmdline.contains("-XX:SharedArchiveFile=") || cmdline.contains("-XX:AOTCache="),
                cmdline.replace('\0', ' '));
        String maps = Files.readString(Path.of("/proc", Long.toString(pid), "maps"));
        assertTrue(
                maps.lines().anyMatch(l -> l.contains("/cds/agent-") && (l.endsWith(".jsa") || l.endsWith(".aot"))),
                "the agent maps the archive");
        String id =
                manager.send("POST", "/jobs", "{\"type\": \"cds\"}").get("id").asText();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> "SUCCEEDED"
                        .equals(manager.get("/jobs/" + id).get("state").asText()));
    }
}
