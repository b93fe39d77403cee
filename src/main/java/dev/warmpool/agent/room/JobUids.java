package dev.warmpool.agent.room;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;

/**
 * The jobs' uid of one processor, taken from a range as systemd's DynamicUser takes a service's:
 * a uid that no other processor, no other install on this host and no warmpool process holds while
 * this agent lives. An agent holds its uid by a lock on a file named after it in a root-only dir;
 * the kernel drops the lock when the agent's process ends, so a crashed agent frees its uid without
 * anyone cleaning up. Only a root agent takes one (only root can run jobs as another uid).
 */
final class JobUids {
    /** Where the claims are: root's, under /run (a tmpfs: no claim outlives a boot). */
    static final Path CLAIMS = Path.of("/run/warmpool-job-uids");

    /** The locks this JVM holds: released with the process. */
    private static final Map<Long, FileLock> HELD = new HashMap<>();

    private JobUids() {}

    /** A range {@code first-last} (inclusive), as WARMPOOL_JOB_UIDS gives it. */
    record Range(long first, long last) {
        static Range parse(String text) {
            String[] ends = text.trim().split("-");
            if (ends.length != 2) {
                throw new IllegalArgumentException("a uid range is first-last, not " + text);
            }
            long first = Long.parseLong(ends[0].trim());
            long last = Long.parseLong(ends[1].trim());
            if (first < 1000 || last < first || last > 0xFFFFFFFEL) {
                throw new IllegalArgumentException("the uid range " + text + " must lie within 1000-4294967294");
            }
            return new Range(first, last);
        }

        long size() {
            return last - first + 1;
        }
    }

    /**
     * Claims a free uid of {@code range} for this process, starting at a place that {@code seed}
     * (the processor's id) picks so that agents starting together rarely try the same ones.
     */
    static synchronized long claim(Range range, String seed) throws IOException {
        claimsDir();
        long start = Math.floorMod((long) seed.hashCode(), range.size());
        for (long i = 0; i < range.size(); i++) {
            long uid = range.first() + (start + i) % range.size();
            if (HELD.containsKey(uid)) {
                continue; // this JVM's already: a second fd on the file, closed, would drop its lock
            }
            FileChannel ch = FileChannel.open(
                    CLAIMS.resolve(Long.toString(uid)),
                    StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
            FileLock lock;
            try {
                lock = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null; // this JVM holds it already (checked above: not reached)
            }
            if (lock != null) {
                HELD.put(uid, lock);
                return uid;
            }
            ch.close();
        }
        throw new IOException("every uid of " + range.first() + "-" + range.last() + " is held by another processor");
    }

    /** The claims dir: made 0700 by root, or refused when someone else made it (they could hold every uid). */
    private static void claimsDir() throws IOException {
        if (!Files.exists(CLAIMS, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.createDirectory(
                        CLAIMS, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (FileAlreadyExistsException e) {
                // another agent made it meanwhile
            }
        }
        if (!Files.isDirectory(CLAIMS, LinkOption.NOFOLLOW_LINKS)
                || (Integer) Files.getAttribute(CLAIMS, "unix:uid", LinkOption.NOFOLLOW_LINKS) != 0
                || !Files.getPosixFilePermissions(CLAIMS, LinkOption.NOFOLLOW_LINKS)
                        .equals(PosixFilePermissions.fromString("rwx------"))) {
            throw new IOException(CLAIMS + " is not a dir of root's alone (0700): remove it");
        }
    }
}
