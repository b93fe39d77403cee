package dev.warmpool.agent;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A job's room, with and without bubblewrap (CI installs it): what it sees, what it leaves behind. */
class SandboxTests {
    @TempDir
    Path tmp;

    Sandbox sandbox(String kind, Path hidden) throws Exception {
        Path root = Files.createDirectory(tmp.resolve("agent"));
        return Sandbox.fromEnv(Map.of("WARMPOOL_SANDBOX", kind, "WARMPOOL_SANDBOX_HIDE", hidden.toString()), root);
    }

    static boolean alive(String tag) {
        return ProcessHandle.allProcesses().anyMatch(h -> {
            try {
                return Files.readString(
                                Path.of("/proc", Long.toString(h.pid()), "cmdline"), StandardCharsets.ISO_8859_1)
                        .equals("sleep\0" + tag + "\0");
            } catch (java.io.IOException e) {
                return false;
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"bwrap", "none"})
    void whatAJobLeavesRunningDiesWithIt(String kind) throws Exception {
        Sandbox s = sandbox(kind, Files.createDirectory(tmp.resolve("state")));
        Path dir = s.newDir("job-1");
        String tag = "4" + (System.nanoTime() % 1000) + "." + kind.length();
        // a double fork leaves the sleeper to init; in the sandbox even a new session of its own does not help it
        String escape =
                "(sleep " + tag + " &); " + ("bwrap".equals(kind) ? "setsid sleep " + tag + " & " : "") + "exit 0";
        Process p = new ProcessBuilder(s.wrap(List.of("sh", "-c", escape), dir, null))
                .directory(s.directory(dir, null))
                .start();
        assertEquals(0, p.waitFor());
        s.killSession(p.pid());
        await().atMost(Duration.ofSeconds(5)).until(() -> !alive(tag));
    }

    @Test
    void aSandboxedJobSeesItsOwnProcessesAndNotTheHiddenDir() throws Exception {
        Path state = Files.createDirectory(tmp.resolve("state"));
        Files.writeString(state.resolve("token"), "secret");
        Sandbox s = sandbox("bwrap", state);
        Path dir = s.newDir("job-2");
        Process p = new ProcessBuilder(s.wrap(
                        List.of(
                                "sh",
                                "-c",
                                "ls /proc | grep -c '^[0-9]'; ls -A " + state
                                        + "; echo x > out; pwd; touch /usr/x 2>/dev/null || echo read-only"),
                        dir,
                        null))
                .directory(s.directory(dir, null))
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        List<String> lines = out.lines().toList();
        assertTrue(Integer.parseInt(lines.get(0)) <= 4, "only its own processes: " + out);
        assertFalse(out.contains("token"), out);
        assertEquals(dir.toString(), lines.get(1), out);
        assertEquals("read-only", lines.get(2), out);
        assertTrue(Files.exists(dir.resolve("out")), "its own dir is writable");
        Sandbox.remove(dir);
        assertFalse(Files.exists(dir));
    }

    @Test
    void aSandboxedJobReadsTheHostsTmpButWritesOnlyItsOwn() throws Exception {
        Path shared = Files.createTempDirectory(Path.of("/tmp"), "wp-shared");
        Files.writeString(shared.resolve("script"), "hello");
        String mine = "wp-mine-" + System.nanoTime();
        try {
            Sandbox s = sandbox("bwrap", Files.createDirectory(tmp.resolve("state")));
            Path dir = s.newDir("job-3");
            Process p = new ProcessBuilder(s.wrap(
                            List.of(
                                    "sh",
                                    "-c",
                                    "cat " + shared + "/script; echo; echo x > /tmp/" + mine + " && cat /tmp/" + mine
                                            + "; { echo y > " + shared + "/z; } 2>/dev/null || echo read-only"),
                            dir,
                            null))
                    .directory(s.directory(dir, null))
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.waitFor(), out);
            assertEquals(List.of("hello", "x", "read-only"), out.lines().toList());
            assertFalse(Files.exists(Path.of("/tmp", mine)), "what it wrote to /tmp stayed in its own");
        } finally {
            Sandbox.remove(shared);
        }
    }

    @Test
    void aSessionWhoseLeaderLivesIsAnotherJobsAndIsLeftAlone() throws Exception {
        // the pid of a reaped job may lead a new session elsewhere: its clean-up must not kill that
        Sandbox s = sandbox("none", Files.createDirectory(tmp.resolve("state")));
        Process other = new ProcessBuilder("setsid", "sleep", "30").start();
        try {
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> Sandbox.session(Path.of("/proc", Long.toString(other.pid()))) == other.pid());
            s.killSession(other.pid());
            assertTrue(other.isAlive());
        } finally {
            other.destroyForcibly();
        }
    }

    @Test
    void jobsOfAnotherUserGetOnlyThePathEntriesThatUserCanReach() throws Exception {
        Files.setPosixFilePermissions(tmp, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(open, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path closed = Files.createDirectory(tmp.resolve("closed"));
        Files.setPosixFilePermissions(closed, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        Map<String, String> base = Map.of("PATH", closed + ":" + open, "LANG", "C.UTF-8");
        Sandbox asNobody =
                Sandbox.fromEnv(Map.of("WARMPOOL_RUN_AS", "65534:65534"), Files.createDirectory(tmp.resolve("agent")));
        assertEquals(Map.of("PATH", open.toString(), "LANG", "C.UTF-8"), asNobody.forJobUser(base));
        Sandbox asItself = Sandbox.fromEnv(Map.of(), Files.createDirectory(tmp.resolve("agent2")));
        assertEquals(base, asItself.forJobUser(base), "the agent's own user reaches all it does");
    }
}
