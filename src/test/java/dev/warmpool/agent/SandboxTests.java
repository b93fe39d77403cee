package dev.warmpool.agent;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.agent.room.HostTmp;
import dev.warmpool.agent.room.Sandbox;
import dev.warmpool.testing.Ci;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
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
            } catch (IOException e) {
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
    void inAContainerEachOptionOfTheUserSwitchIsGivenOnceAndNoneNeedsCapSetpcap() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("container"));
        Sandbox s = Sandbox.fromEnv(
                Map.of("WARMPOOL_SANDBOX", Sandbox.ROOM, "WARMPOOL_RUN_AS", "1879048192:1879048192"), dir);
        List<String> c = s.wrap(List.of("true"), dir, null);
        assertEquals(c.stream().distinct().count(), c.size(), "setpriv refuses an option given twice: " + c);
        assertFalse(c.contains("--bounding-set=-all"), "a container's agent cannot drop its bounding set: " + c);
        assertTrue(c.containsAll(List.of("--reuid=1879048192", "--clear-groups", "--no-new-privs")), c.toString());
        Sandbox host = Sandbox.fromEnv(
                Map.of("WARMPOOL_RUN_AS", "1879048192:1879048192"), Files.createDirectory(tmp.resolve("host")));
        assertTrue(host.wrap(List.of("true"), dir, null).contains("--bounding-set=-all"), "on the host it is dropped");
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
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path closed = Files.createDirectory(tmp.resolve("closed"));
        Files.setPosixFilePermissions(closed, PosixFilePermissions.fromString("rwx------"));
        Map<String, String> base = Map.of("PATH", closed + ":" + open, "LANG", "C.UTF-8");
        Sandbox asNobody =
                Sandbox.fromEnv(Map.of("WARMPOOL_RUN_AS", "65534:65534"), Files.createDirectory(tmp.resolve("agent")));
        assertEquals(Map.of("PATH", open.toString(), "LANG", "C.UTF-8"), asNobody.forJobUser(base));
        Sandbox asItself = Sandbox.fromEnv(Map.of(), Files.createDirectory(tmp.resolve("agent2")));
        assertEquals(base, asItself.forJobUser(base), "the agent's own user reaches all it does");
    }

    /** Runs {@code script} in {@code s}'s room for a job named {@code name}; its output (exit 0 asserted). */
    static String run(Sandbox s, String name, String script) throws Exception {
        Path dir = s.newDir(name);
        Process p = new ProcessBuilder(s.wrap(List.of("sh", "-c", script), dir, null))
                .directory(s.directory(dir, null))
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        return out;
    }

    @Test
    void aSandboxedJobSeesNoAgentsDirNorASocketOfTheHostsTmp() throws Exception {
        Path agentDir = Files.createTempDirectory(Path.of("/tmp"), "warmpool-other-");
        Files.writeString(agentDir.resolve("secret"), "another processor's job");
        Path socket = Path.of("/tmp", "wp-socket-" + System.nanoTime());
        try (var server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            Sandbox s = sandbox("bwrap", Files.createDirectory(tmp.resolve("state")));
            String name = agentDir.getFileName().toString();
            String out = run(
                    s,
                    "job-4",
                    "cat " + agentDir + "/secret " + HostTmp.HOST_TMP + "/" + name + "/secret 2>/dev/null; "
                            + "ls -A " + HostTmp.HOST_TMP + "/" + name + "; "
                            + "test -S " + HostTmp.HOST_TMP + "/" + socket.getFileName() + " && echo socket; "
                            + "test -e " + socket + " || echo no-socket-link");
            assertEquals(List.of("no-socket-link"), out.lines().toList());
        } finally {
            Files.deleteIfExists(socket);
            Sandbox.remove(agentDir);
        }
    }

    @Test
    void aJobOfAnotherUserWritesItsOwnTmpAndReadsTheHosts() throws Exception {
        boolean root = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0;
        Ci.require(root, "only root switches a job's user", "CI (.ci/run) runs as root");
        Path shared = Files.createTempDirectory(Path.of("/tmp"), "wp-shared");
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(shared.resolve("script"), "hello");
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
        try {
            Sandbox s = Sandbox.fromEnv(
                    Map.of(
                            "WARMPOOL_SANDBOX",
                            "bwrap",
                            "WARMPOOL_SANDBOX_HIDE",
                            Files.createDirectory(tmp.resolve("state")).toString(),
                            "WARMPOOL_RUN_AS",
                            "65534:65534"),
                    Files.createDirectory(tmp.resolve("agent")));
            String out = run(
                    s,
                    "job-5",
                    "id -u; cat " + shared + "/script; echo; echo x > /tmp/mine && cat /tmp/mine; "
                            + "echo y > /dev/shm/mine && cat /dev/shm/mine; echo z > out && cat out");
            assertEquals(List.of("65534", "hello", "x", "y", "z"), out.lines().toList());
        } finally {
            Sandbox.remove(shared);
        }
    }

    @Test
    void agentsShareOneDirOfTheirUserInTmp() throws Exception {
        Path a = AgentDirs.newRoot("p-a");
        Path b = AgentDirs.newRoot("p-b");
        try {
            assertEquals(a.getParent(), b.getParent());
            assertTrue(a.getParent().getFileName().toString().startsWith("warmpool-"), a.toString());
            assertEquals(PosixFilePermissions.fromString("rwx--x--x"), Files.getPosixFilePermissions(a.getParent()));
            assertEquals(PosixFilePermissions.fromString("rwx------"), Files.getPosixFilePermissions(a));
        } finally {
            Sandbox.remove(a);
            Sandbox.remove(b);
        }
    }

    @Test
    void anAgentRemovesTheEmptyDirsOfAgentsThatAreGone() throws Exception {
        int me = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        Path parent = Files.createDirectory(tmp.resolve("warmpool-" + me));
        Path deadOld = Files.createDirectory(tmp.resolve("warmpool-gone1234"));
        Path leftOld = Files.createDirectory(tmp.resolve("warmpool-killed1234"));
        Files.writeString(leftOld.resolve("result"), "a killed agent's job left this");
        Path liveOld = Files.createDirectory(tmp.resolve("warmpool-alive-p1234"));
        Path dead = Files.createDirectory(parent.resolve("gone5678"));
        Path live = Files.createDirectory(parent.resolve("alive-p5678"));
        Path fresh = Files.createDirectory(parent.resolve("in-process-agent9"));
        FileTime old = FileTime.from(Instant.now().minus(AgentDirs.LEFTOVER_AGE).minusSeconds(60));
        for (Path d : List.of(deadOld, leftOld, liveOld, dead, live)) {
            Files.setLastModifiedTime(d, old);
        }
        Process agent = new ProcessBuilder("sh", "-c", "sleep 30", "-Dwarmpool.processor=alive-p").start();
        try {
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> Files.readString(Path.of("/proc", Long.toString(agent.pid()), "cmdline"))
                            .contains("-Dwarmpool.processor=alive-p"));
            AgentDirs.removeLeftovers(tmp, parent, me);
            assertFalse(Files.exists(deadOld));
            assertFalse(Files.exists(dead));
            assertTrue(Files.exists(leftOld.resolve("result")), "not empty: kept (and hidden from jobs)");
            assertTrue(Files.exists(liveOld), "a live agent's");
            assertTrue(Files.exists(live), "a live agent's");
            assertTrue(Files.exists(fresh), "changed lately: an agent no command line names may use it");
            assertTrue(Files.exists(parent));
        } finally {
            agent.destroyForcibly();
        }
    }
}
