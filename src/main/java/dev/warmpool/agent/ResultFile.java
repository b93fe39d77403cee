package dev.warmpool.agent;

import dev.warmpool.agent.io.AgentLog;
import dev.warmpool.agent.io.ResultLimit;
import dev.warmpool.agent.room.Sandbox;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Set;

/**
 * The file a job wrote to {@code WARMPOOL_RESULT}, read as a stranger's: the job names the path,
 * so it may be a link to a file only the agent's user can read (the agent of a root manager
 * returned it as metrics), a fifo that blocks the reader, or gigabytes that end the agent's heap.
 * It is taken out of the job's reach first, then read only when it is a regular file of the job's
 * user with one name, and only up to a bound; a refusal says nothing of any other file.
 */
final class ResultFile {
    static final String NOT_ITS_OWN = "the result file (WARMPOOL_RESULT) is not a regular file the job wrote"
            + " (a link, a directory, a fifo or another user's file is refused)";

    static final String UNREADABLE = "the result file (WARMPOOL_RESULT) could not be read";

    private static final int TYPE_BITS = 0170000;
    private static final int REGULAR = 0100000;

    /** The agent's own uid: the owner of a job's files when jobs run as the agent's user. */
    static final int AGENT_UID = agentUid();

    /** What the job left: its text (null when it wrote nothing) or, instead, why it was refused. */
    record Read(String text, String error) {
        static final Read NONE = new Read(null, null);

        static Read refused(String error) {
            return new Read(null, error);
        }
    }

    private ResultFile() {}

    /** The sentence for a result file over {@code limit} bytes. */
    static String tooLarge(long limit) {
        return "the result file (WARMPOOL_RESULT) is larger than " + limit + " bytes, the limit (" + ResultLimit.SETTING
                + ")";
    }

    /**
     * Reads the result {@code file} of a job whose user is {@code owner}, at most {@code limit}
     * bytes of it. It is first renamed to {@code held}, in a dir only the agent may write, so that
     * nothing the job left running can swap it for a link or a fifo between the checks and the
     * read (rename moves a link itself, never what it names); {@code held} is gone afterwards.
     */
    static Read read(Path file, Path held, int owner, long limit) {
        if (!Sandbox.present(file)) {
            return Read.NONE; // most jobs write none: asked without an exception
        }
        try {
            Map<String, Object> before = Files.readAttributes(file, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            if (!regular(before)) {
                return Read.refused(NOT_ITS_OWN); // left for the job's dir's removal, not moved
            }
            Files.move(file, held, StandardCopyOption.ATOMIC_MOVE);
        } catch (NoSuchFileException e) {
            return Read.NONE;
        } catch (IOException | RuntimeException e) {
            AgentLog.log("could not take the result file %s: %s", file, e);
            return Read.refused(UNREADABLE);
        }
        try {
            return readHeld(held, owner, limit);
        } finally {
            Sandbox.remove(held);
        }
    }

    private static Read readHeld(Path held, int owner, long limit) {
        try {
            Map<String, Object> a = Files.readAttributes(held, "unix:mode,uid,nlink,size", LinkOption.NOFOLLOW_LINKS);
            // a second name (a hard link) would make another file's contents the job's result
            if (!regular(a) || (owner >= 0 && (Integer) a.get("uid") != owner) || (Integer) a.get("nlink") != 1) {
                return Read.refused(NOT_ITS_OWN);
            }
            if ((Long) a.get("size") > limit) {
                return Read.refused(tooLarge(limit));
            }
            byte[] bytes = upTo(held, limit);
            if (bytes == null) {
                return Read.refused(tooLarge(limit)); // it grew while read: a writer of the job's is still there
            }
            return bytes.length == 0 ? Read.NONE : new Read(new String(bytes, StandardCharsets.UTF_8), null);
        } catch (IOException | RuntimeException e) {
            AgentLog.log("could not read the result file %s: %s", held, e);
            return Read.refused(UNREADABLE);
        }
    }

    /** The file's bytes, or null when it holds more than {@code limit}. */
    private static byte[] upTo(Path file, long limit) throws IOException {
        try (SeekableByteChannel in =
                Files.newByteChannel(file, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
            ByteBuffer buf = ByteBuffer.allocate((int) Math.min(limit + 1, Math.max(in.size() + 1, 4096)));
            while (true) {
                if (!buf.hasRemaining()) {
                    if (buf.capacity() > limit) {
                        return null;
                    }
                    ByteBuffer bigger = ByteBuffer.allocate((int) Math.min(limit + 1, 2L * buf.capacity()));
                    buf.flip();
                    bigger.put(buf);
                    buf = bigger;
                }
                if (in.read(buf) < 0) {
                    break;
                }
            }
            byte[] out = new byte[buf.position()];
            buf.flip().get(out);
            return out;
        }
    }

    private static boolean regular(Map<String, Object> attributes) {
        return ((Integer) attributes.get("mode") & TYPE_BITS) == REGULAR;
    }

    private static int agentUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | RuntimeException e) {
            return -1; // no /proc: the owner is not checked (the type, the link count and the bound are)
        }
    }
}
