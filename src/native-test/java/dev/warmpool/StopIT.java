package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.runtime.local.LocalAgents;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code java -jar quarkus-run.jar stop}: one install's manager, agents and Redis, never another's,
 * found from its state dir whatever the environment {@code stop} runs in.
 */
class StopIT {
    LocalInstall a;
    LocalInstall b;

    @AfterEach
    void tearDown() throws Exception {
        for (LocalInstall i : new LocalInstall[] {a, b}) {
            if (i != null) {
                i.close();
            }
        }
    }

    static void awaitDemoIdle(ManagerProcess m) {
        await().atMost(Duration.ofSeconds(60))
                .ignoreExceptions()
                .until(() -> m.get("/pools/demo").at("/status/idle").asInt() >= 1);
    }

    @Test
    void stopsThisInstallOnlyAndLeavesASecondOnesAgentsRunning() throws Exception {
        a = new LocalInstall();
        b = new LocalInstall();
        ManagerProcess ma = a.start(List.of(), Map.of());
        ManagerProcess mb = b.start(List.of(), Map.of());
        awaitDemoIdle(ma);
        awaitDemoIdle(mb);
        List<Long> agentsOfB = LocalAgents.agentPids(b.redisUrl());
        List<String> processorsOfA = LocalAgents.processorIds(a.redisUrl());
        ProcessHandle redisOfA = a.redis().orElseThrow();
        assertFalse(agentsOfB.isEmpty());
        assertFalse(processorsOfA.isEmpty());

        // as a user runs it: without the port A was started with (its agents' command lines name that port)
        Process stop = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-jar",
                        Path.of("target/quarkus-app/quarkus-run.jar")
                                .toAbsolutePath()
                                .toString(),
                        "stop")
                .directory(a.home.toFile())
                .redirectErrorStream(true)
                .start();
        String said = new String(stop.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(stop.waitFor(120, TimeUnit.SECONDS), said);
        assertEquals(0, stop.exitValue(), said);
        assertTrue(said.contains("stopped 1 manager(s) and 1 agent(s)"), said);

        assertFalse(a.process.isAlive(), "A's manager");
        assertTrue(LocalAgents.agentPids(a.redisUrl()).isEmpty(), "A's agents");
        await().atMost(Duration.ofSeconds(10)).until(() -> ended(redisOfA.pid()));
        assertTrue(b.process.isAlive(), "B's manager runs on");
        assertEquals(agentsOfB, LocalAgents.agentPids(b.redisUrl()), "B's agents run on");
        assertTrue(b.redis().orElseThrow().isAlive(), "B's Redis runs on");
        assertTrue(
                processorDirs(processorsOfA).isEmpty(), "the dirs of A's processors: " + processorDirs(processorsOfA));
    }

    /** Nothing listens on 127.0.0.1:{@code port} (a Redis that ended removed its pid file). */
    static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** What agents of {@code processors} keep in /tmp (see AgentDirs). */
    static List<Path> processorDirs(List<String> processors) throws IOException {
        int me = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        Path shared = Path.of("/tmp", "warmpool-" + me);
        if (!Files.isDirectory(shared)) {
            return List.of();
        }
        try (var dirs = Files.list(shared)) {
            return dirs.filter(d -> processors.stream()
                            .anyMatch(p -> d.getFileName().toString().startsWith(p)))
                    .toList();
        }
    }

    @Test
    void aManagerThatFailsToStartStopsTheRedisItStarted() throws Exception {
        a = new LocalInstall();
        try (ServerSocket taken = new ServerSocket(a.httpPort)) {
            Process m = a.launch(List.of(), Map.of());
            assertTrue(m.waitFor(120, TimeUnit.SECONDS), "the manager did not end");
            assertTrue(m.exitValue() != 0, a.log());
        }
        assertTrue(a.log().contains("stopped the Redis it started"), a.log());
        await().atMost(Duration.ofSeconds(10)).until(() -> free(a.redisPort));
    }

    /**
     * Gone, or a zombie: an agent whose manager was killed belongs to the machine's init, which
     * may reap it late (and a zombie counts as alive for ProcessHandle).
     */
    static boolean ended(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
        } catch (IOException e) {
            return true;
        }
    }

    @Test
    void anAgentEndsWithinTwoSecondsOfSigtermWithRedisGone() throws Exception {
        a = new LocalInstall();
        ManagerProcess m = a.start(List.of(), Map.of());
        awaitDemoIdle(m);
        a.process.destroyForcibly().waitFor(); // nothing restarts what we kill next
        ProcessHandle redis = a.redis().orElseThrow();
        redis.destroyForcibly();
        redis.onExit().get(10, TimeUnit.SECONDS);
        ProcessHandle agent =
                ProcessHandle.of(LocalAgents.agentPids(a.redisUrl()).get(0)).orElseThrow();
        long t0 = System.nanoTime();
        agent.destroy();
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> ended(agent.pid()));
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertTrue(seconds < 2.0, "the agent took " + seconds + " s to end after SIGTERM");
    }
}
