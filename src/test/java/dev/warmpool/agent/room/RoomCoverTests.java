package dev.warmpool.agent.room;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.warmpool.testing.Ci;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a room of a non-root manager hides (CI runs as root, and runs the room as nobody with
 * setpriv: a non-root agent's bwrap): the manager user's home but the paths the pool names, the
 * host's /run sockets (docker.sock); and what a job leaves in the processor's jobs folder.
 */
class RoomCoverTests {
    @TempDir
    Path tmp;

    final List<Path> made = new ArrayList<>();

    @AfterEach
    void remove() {
        made.forEach(Sandbox::remove);
    }

    static void nobodys(Path p) throws Exception {
        Files.setAttribute(p, "unix:uid", 65534, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(p, "unix:gid", 65534, LinkOption.NOFOLLOW_LINKS);
    }

    @Test
    void aNonRootRoomHidesTheHomeButWhatThePoolNamesAndTheRunSockets() throws Exception {
        boolean root = "root".equals(System.getProperty("user.name"));
        Ci.require(root, "root runs the room as nobody", "CI (.ci/run) runs as root");
        // nobody's home, outside /tmp (a room's /tmp is its own), with a key and a project
        Path home = Files.createTempDirectory(Path.of("/var/tmp"), "wp-home");
        made.add(home);
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx--x--x"));
        Path ssh = Files.createDirectories(home.resolve(".ssh"));
        Files.writeString(ssh.resolve("id_rsa"), "PRIVATE KEY");
        Path project = Files.createDirectories(home.resolve("project"));
        Files.writeString(project.resolve("train.sh"), "echo trained\n");
        try (Stream<Path> all = Files.walk(home)) {
            for (Path p : all.toList()) {
                nobodys(p);
            }
        }
        Path agent = Files.createTempDirectory(Path.of("/var/tmp"), "wp-agent");
        made.add(agent);
        nobodys(agent);
        // a daemon's socket in /run that the manager's user could reach (as docker.sock for group docker)
        Path sock = Path.of("/run", "wp-test-" + System.nanoTime() + ".sock");
        try (ServerSocketChannel daemon = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            daemon.bind(UnixDomainSocketAddress.of(sock));
            Files.setPosixFilePermissions(sock, PosixFilePermissions.fromString("rw-rw-rw-"));
            Sandbox s = Sandbox.fromEnv(Map.of("WARMPOOL_SANDBOX", "bwrap", "PATH", "/nonexistent"), agent);
            s.cover(new RoomCover(home));
            s.follow(null, List.of("sh", project.resolve("train.sh").toString()), null);
            Path dir = s.newDir("job-1");
            nobodys(dir);
            List<String> command = new ArrayList<>(
                    List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--"));
            command.addAll(s.wrap(
                    List.of(
                            "sh",
                            "-c",
                            "sh " + project.resolve("train.sh") + "; cat " + ssh.resolve("id_rsa")
                                    + " 2>/dev/null || echo no-key; test -S " + sock
                                    + " && echo socket || echo no-socket; "
                                    + "ls -A /run | wc -l; echo x > " + project.resolve("new")),
                    dir,
                    null));
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            pb.environment().clear();
            pb.environment().putAll(Map.of("PATH", "/usr/bin:/bin", "HOME", home.toString()));
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.waitFor(), out);
            assertEquals(
                    List.of("trained", "no-key", "no-socket", "0"), out.lines().toList());
            assertFalse(Files.exists(project.resolve("new")), "what a job writes in the home stays in its room");
        } finally {
            Files.deleteIfExists(sock);
        }
    }

    @Test
    void whatAJobLeavesInTheJobsFolderIsGoneForTheNext() throws Exception {
        Sandbox s = Sandbox.fromEnv(Map.of("WARMPOOL_SANDBOX", "none"), Files.createDirectory(tmp.resolve("agent")));
        Path first = s.newJobDir("1");
        Files.writeString(s.jobsDir().resolve("left"), "for the next job");
        Files.createDirectory(s.jobsDir().resolve("job-evil"));
        Path second = s.newJobDir("2");
        try (Stream<Path> in = Files.list(s.jobsDir())) {
            assertEquals(List.of(second), in.toList());
        }
        assertFalse(Files.exists(first));
    }
}
