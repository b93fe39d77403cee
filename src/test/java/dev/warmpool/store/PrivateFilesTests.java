package dev.warmpool.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivateFilesTests {
    @TempDir
    Path tmp;

    static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void makesTheStateDirPrivateAndNarrowsWhatAnOlderBuildLeftOpen() throws Exception {
        Path fresh = PrivateFiles.secureDir(tmp.resolve("fresh"));
        assertEquals("rwx------", mode(fresh));
        Path old = Files.createDirectories(tmp.resolve("old/logs"));
        Files.setPosixFilePermissions(old.getParent(), PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(old, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path aof = Files.writeString(old.resolve("a.log"), "x");
        Files.setPosixFilePermissions(aof, PosixFilePermissions.fromString("rw-r--r--"));
        PrivateFiles.secureDir(old.getParent());
        assertEquals("rwx------", mode(old.getParent()));
        assertEquals("rwx------", mode(old));
        assertEquals("rw-------", mode(aof));
    }

    @Test
    void refusesAStateDirOthersMayWrite() throws Exception {
        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> PrivateFiles.secureDir(open));
        assertTrue(e.getMessage().contains("chmod 700 " + open.toAbsolutePath()), e.getMessage());
    }

    @Test
    void refusesAStateDirOfAnotherUser() throws Exception {
        Path theirs = Files.createDirectory(tmp.resolve("theirs"));
        if ("root".equals(System.getProperty("user.name"))) {
            Files.setAttribute(theirs, "unix:uid", 65534);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> PrivateFiles.secureDir(theirs));
            assertTrue(e.getMessage().contains("belongs to user nobody"), e.getMessage());
        } else {
            // not root: the dir is this user's own, and accepted
            assertEquals(theirs, PrivateFiles.secureDir(theirs));
        }
    }

    @Test
    void findsAgainOnlyTheRedisThisInstallStarted() throws Exception {
        int port = RedisServer.freePort();
        Path dir = tmp.resolve("redis");
        RedisServer own = RedisServer.persistent(port, dir, "pw");
        try {
            assertTrue(own.process().isPresent(), "started now");
            assertEquals(Optional.empty(), RedisServer.ours(port, dir.resolve(RedisServer.PID_FILE)));
            RedisServer again = RedisServer.persistent(port, dir, "pw");
            assertFalse(again.process().isPresent(), "the same server, found again");
            assertEquals("rw-------", mode(dir.resolve(RedisServer.PID_FILE)), "written with umask 077");
            try (var aof = Files.walk(dir.resolve("appendonlydir"))) {
                for (Path p : aof.filter(Files::isRegularFile).toList()) {
                    assertEquals("rw-------", mode(p), p.toString());
                }
            }
        } finally {
            own.stop();
        }
    }

    @Test
    void refusesARedisSomeoneElseStartedOnItsPort() {
        RedisServer planted = RedisServer.ephemeral();
        try {
            Path dir = tmp.resolve("mine");
            IllegalStateException e =
                    assertThrows(IllegalStateException.class, () -> RedisServer.persistent(planted.port(), dir, "pw"));
            assertTrue(e.getMessage().contains("will not use a Redis it did not start"), e.getMessage());
            // a pid file naming another process does not make it ours either
            Files.writeString(
                    dir.resolve(RedisServer.PID_FILE),
                    Long.toString(ProcessHandle.current().pid()));
            assertTrue(RedisServer.ours(planted.port(), dir.resolve(RedisServer.PID_FILE))
                    .isPresent());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            planted.stop();
        }
    }
}
