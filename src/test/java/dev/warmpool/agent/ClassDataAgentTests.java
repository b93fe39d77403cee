package dev.warmpool.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.protocol.AgentEnv;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The throw-away agent that records the agents' class data waits for no Redis: one whose manager
 * was killed while it started (its Redis gone with it) retried for good, and CI runs left such
 * JVMs behind, each holding a deleted install's archive log.
 */
class ClassDataAgentTests {
    @TempDir
    Path tmp;

    @Test
    void theClassDataAgentEndsWhenRedisCannotBeReached() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort(); // nothing listens there once it is closed
        }
        Path log = tmp.resolve("agent.log");
        ProcessBuilder pb = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        Agent.class.getName())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().clear();
        pb.environment()
                .putAll(Map.of(
                        "PATH",
                        "/usr/bin:/bin",
                        AgentEnv.REDIS_URL,
                        "redis://127.0.0.1:" + closed,
                        AgentEnv.POOL,
                        AgentEnv.CLASS_DATA_POOL,
                        AgentEnv.PROCESSOR_ID,
                        AgentEnv.CLASS_DATA_PROCESSOR));
        Process p = pb.start();
        try {
            boolean ended = p.waitFor(AgentEnv.CLASS_DATA_WAIT_SECONDS + 30, TimeUnit.SECONDS);
            String said = Files.readString(log);
            assertTrue(ended, "it ends on its own:\n" + said);
            assertEquals(1, p.exitValue(), said);
            assertTrue(said.contains("redis stayed unreachable"), said);
        } finally {
            p.destroyForcibly();
        }
    }
}
