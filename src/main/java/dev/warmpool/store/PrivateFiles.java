package dev.warmpool.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The state dir and what the manager and its Redis write there (tokens, the Redis password,
 * the AOF, agent logs) are private to the manager's user: other Unix users of a shared machine
 * (a GPU server) must not read an agent's password or a job's env. Dirs are 0700, files 0600;
 * a dir that belongs to someone else, or that others may write, is refused, since whoever can
 * write it can swap what the manager reads.
 */
public final class PrivateFiles {
    static final Set<PosixFilePermission> DIR = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    private PrivateFiles() {}

    /**
     * Makes {@code dir} (0700) or checks the one there is, then narrows everything below it to
     * 0700/0600 (an older warmpool left them 0755/0644). Returns the dir.
     *
     * @throws IllegalStateException when it belongs to another user or others may write it
     */
    public static Path secureDir(Path dir) {
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(dir.toAbsolutePath().getParent());
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIR));
                return dir;
            }
            check(dir);
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
                    narrow(d, DIR);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
                    if (attrs.isRegularFile()) {
                        narrow(f, FILE);
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path f, IOException e) {
                    return FileVisitResult.CONTINUE; // gone meanwhile (an agent's secret file)
                }
            });
            return dir;
        } catch (UnsupportedOperationException e) {
            return dir; // no POSIX permissions on this file system: nothing to narrow
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the private dir " + dir.toAbsolutePath(), e);
        }
    }

    /** Refuses a dir that is not this user's, or that its group or others may write. */
    static void check(Path dir) throws IOException {
        String owner = Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName();
        String me = System.getProperty("user.name");
        if (!owner.equals(me)) {
            throw new IllegalStateException(dir.toAbsolutePath() + " belongs to user " + owner + ", not to " + me
                    + " who runs warmpool: another user could read or replace its secrets; use a dir of your own"
                    + " (warmpool.runtime.local.state-dir, warmpool.redis.embedded-dir)");
        }
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
        if (mode.contains(PosixFilePermission.GROUP_WRITE) || mode.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new IllegalStateException(dir.toAbsolutePath() + " may be written by other users (mode "
                    + PosixFilePermissions.toString(mode) + "): run 'chmod 700 " + dir.toAbsolutePath()
                    + "' or choose another dir");
        }
    }

    private static void narrow(Path p, Set<PosixFilePermission> wanted) throws IOException {
        Set<PosixFilePermission> now = Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
        if (!wanted.containsAll(now)) {
            Set<PosixFilePermission> kept = PosixFilePermissions.fromString(PosixFilePermissions.toString(now));
            kept.retainAll(wanted);
            Files.setPosixFilePermissions(p, kept);
        }
    }

    /** Writes {@code text} to a file only this user may read (made so before anything is in it). */
    public static void write(Path file, String text) throws IOException {
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(FILE));
        Files.writeString(file, text);
    }
}
