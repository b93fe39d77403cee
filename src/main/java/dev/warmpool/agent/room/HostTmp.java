package dev.warmpool.agent.room;

import dev.warmpool.agent.io.AgentLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The host's /tmp as a sandboxed job sees it: read-only, beside a /tmp of its own (see {@link
 * Sandbox}), without the agents' dirs.
 */
public final class HostTmp {
    private HostTmp() {}

    /** At most this many of the host's /tmp entries are shown in a job's sandbox. */
    static final int TMP_ENTRIES_SHOWN = 256;

    /** Where the host's /tmp is in a job's sandbox (read-only; its entries are linked from /tmp). */
    public static final String HOST_TMP = "/tmp/.warmpool-host-tmp";

    public static final String AGENT_DIRS = "warmpool-";

    /**
     * A sandboxed job writes to a /tmp of its own, and nothing it leaves there reaches the next
     * job; but what the host's /tmp held when the job started (a project checked out there, a
     * script a pool names) stays readable, read-only, as the rest of the file system is. The
     * agents' own dirs ({@code warmpool-*}: other processors' jobs; {@code own}, the entry that
     * holds this processor's dir, too) are hidden (those that hold anything: see {@link #empty}),
     * and so are its sockets and fifos.
     *
     * <p>One read-only bind of the whole host /tmp at {@link #HOST_TMP}, a symlink in the job's
     * /tmp for each entry, and an empty tmpfs over each agent dir: bwrap re-reads the mount table
     * after every bind, so one bind per entry cost about 0.45 ms each (36 entries: 28 ms a job
     * against 12 without them, measured here); a symlink or a tmpfs costs about 0.05 ms.
     */
    public static List<String> shown(String own) {
        List<String> out = new ArrayList<>(List.of("--ro-bind", "/tmp", HOST_TMP));
        List<String> links = new ArrayList<>();
        List<String> hidden = new ArrayList<>();
        String hostName = Path.of(HOST_TMP).getFileName().toString();
        try (Stream<Path> entries = Files.list(Path.of("/tmp"))) {
            entries.forEach(p -> {
                String name = p.getFileName().toString();
                switch (shownAs(p, own)) {
                    case HIDDEN_DIR -> hidden.addAll(List.of("--tmpfs", HOST_TMP + "/" + name));
                    case HIDDEN_FILE -> hidden.addAll(List.of("--ro-bind", "/dev/null", HOST_TMP + "/" + name));
                    case LINKED -> {
                        if (!name.equals(hostName) && links.size() < 3 * TMP_ENTRIES_SHOWN) {
                            links.addAll(List.of("--symlink", HOST_TMP + "/" + name, p.toString()));
                        }
                    }
                    case NOT_SHOWN -> {}
                }
            });
        } catch (IOException | UncheckedIOException e) {
            AgentLog.log("the host's /tmp is not shown to jobs: %s", e.getMessage());
            return List.of();
        }
        out.addAll(hidden);
        out.addAll(links);
        return out;
    }

    /** How an entry of the host's /tmp is shown to a job. */
    enum Shown {
        /** A dir or a file: a link in the job's /tmp to it, read-only. */
        LINKED,
        /** An agent's dir (or the processor's own entry) that holds anything: an empty tmpfs over it. */
        HIDDEN_DIR,
        /** A socket, a fifo, a device, an agent's entry that is not a dir: /dev/null over it. */
        HIDDEN_FILE,
        /** A link (a job does not follow the host's links), an empty agent dir, or gone. */
        NOT_SHOWN
    }

    /** How {@code p}, an entry of the host's /tmp, is shown; {@code own}: the processor's own entry. */
    static Shown shownAs(Path p, String own) {
        String name = p.getFileName().toString();
        BasicFileAttributes a = attributes(p);
        if (a == null) {
            return Shown.NOT_SHOWN; // gone since the listing: bwrap could not mount over it
        }
        if (name.startsWith(AGENT_DIRS) || name.equals(own)) {
            if (!a.isDirectory()) {
                return Shown.HIDDEN_FILE;
            }
            return name.equals(own) || name.matches(AGENT_DIRS + "[0-9]+") || !empty(p)
                    ? Shown.HIDDEN_DIR
                    : Shown.NOT_SHOWN;
        }
        if (a.isDirectory() || a.isRegularFile()) {
            return Shown.LINKED;
        }
        // a socket or a fifo: a read-only mount does not stop a connect or a write to it
        return a.isOther() ? Shown.HIDDEN_FILE : Shown.NOT_SHOWN;
    }

    /**
     * An entry's own attributes (a link's, not its target's), or null when it is gone: an entry
     * removed between the listing and this look was taken for a socket and hidden with a mount
     * bwrap could not make (a job failed, a room did not start, on a host whose /tmp is busy).
     */
    private static BasicFileAttributes attributes(Path p) {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * What {@link #shown} asks of bwrap, in two parts: what hides (the bind of the host's /tmp, the
     * mounts over agents' dirs, sockets and fifos), each as its arguments joined, in order; and the
     * links made in the job's /tmp, by their path there, to their target.
     */
    public record Parts(List<String> hiding, Map<String, String> links) {
        public static Parts of(List<String> shown) {
            List<String> hiding = new ArrayList<>();
            Map<String, String> links = new HashMap<>();
            for (int i = 0; i < shown.size(); ) {
                String arg = shown.get(i);
                if (arg.equals("--symlink") && i + 2 < shown.size()) {
                    links.put(shown.get(i + 2), shown.get(i + 1));
                    i += 3;
                } else if (arg.equals("--tmpfs") && i + 1 < shown.size()) {
                    hiding.add(arg + "\0" + shown.get(i + 1));
                    i += 2;
                } else if (i + 2 < shown.size()) {
                    hiding.add(arg + "\0" + shown.get(i + 1) + "\0" + shown.get(i + 2)); // --ro-bind from to
                    i += 3;
                } else {
                    hiding.add(String.join("\0", shown.subList(i, shown.size())));
                    break;
                }
            }
            return new Parts(hiding, links);
        }
    }

    /**
     * An empty dir (an agent's that holds no job's dir now, most likely a leftover of one that is
     * gone) is not hidden: bwrap cannot make the mount point of a dir that went away meanwhile
     * (agents remove such leftovers, see {@code AgentDirs.removeLeftovers}), and the job would
     * fail. A dir this user cannot list is not hidden either: the job cannot list it.
     */
    private static boolean empty(Path dir) {
        try (Stream<Path> in = Files.list(dir)) {
            return in.findAny().isEmpty();
        } catch (IOException | RuntimeException e) {
            return true;
        }
    }

    /**
     * Where a host path is mounted in the sandbox: under {@link #HOST_TMP} for the host's /tmp
     * entries (their path in the job's /tmp is a symlink, which bwrap cannot mount over), else
     * the path itself; so are the paths in the agents' dirs and in the entry that holds {@code
     * root} (made anew in the job's /tmp: its own dir is there).
     */
    static String mountPoint(String hostPath, Path root) {
        if (!hostPath.startsWith("/tmp/")) {
            return hostPath;
        }
        String rest = hostPath.substring("/tmp/".length());
        String top = rest.contains("/") ? rest.substring(0, rest.indexOf('/')) : rest;
        return top.isEmpty() || top.startsWith(AGENT_DIRS) || top.equals(ownEntry(root))
                ? hostPath
                : HOST_TMP + "/" + rest;
    }

    /** The entry of /tmp that holds {@code root} (its first name under /tmp), or null. */
    static String ownEntry(Path root) {
        Path abs = root.toAbsolutePath().normalize();
        Path tmp = Path.of("/tmp");
        return abs.startsWith(tmp) && abs.getNameCount() > 1 ? abs.getName(1).toString() : null;
    }
}
