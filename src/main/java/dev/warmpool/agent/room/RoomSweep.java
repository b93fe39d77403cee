package dev.warmpool.agent.room;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Empties a {@link ResidentRoom}'s /tmp and /dev/shm after each job, through {@code
 * /proc/<the room's init>/root} (every process of the job is gone by then), and checks that what
 * bwrap made there is as it made it: the host-/tmp links (same targets), the dirs on the way to
 * the agent's binds (nothing else in them), /tmp and /dev/shm themselves (1777, the agent's user's).
 * Everything else in them was the job's, and goes. False when the room cannot be proven clean:
 * then it is discarded.
 *
 * <p>When the jobs run as another user than the room's ({@code jobsAreOthers}: nobody, for a root
 * manager), what bwrap made in /tmp is the room owner's, in a sticky dir: the kernel lets no job
 * remove, rename or replace it, so only the names are read (what bwrap did not make goes); the
 * links and dirs are checked entry by entry, as each job could have changed them, only when the
 * jobs share the room's user. That check read every link through /proc (two calls an entry of the
 * host's /tmp) after every job.
 */
final class RoomSweep {
    private final Path rootfs;
    private final Map<String, String> links = new HashMap<>();
    private final Set<String> ways = new HashSet<>();
    private final Set<String> mounts = new HashSet<>();
    private final int owner;
    private final boolean jobsAreOthers;
    private String why = "";

    /**
     * {@code shown}: bwrap's arguments for the host's /tmp ({@link HostTmp#shown}); {@code binds}:
     * the in-room paths bound into the room (the agent's dirs, a pool's working dir).
     */
    RoomSweep(Path rootfs, List<String> shown, List<String> binds, boolean jobsAreOthers) throws IOException {
        this.rootfs = rootfs;
        this.owner = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        this.jobsAreOthers = jobsAreOthers;
        for (int i = 0; i + 2 < shown.size(); i++) {
            if (shown.get(i).equals("--symlink")) {
                links.put(shown.get(i + 2), shown.get(i + 1));
            }
        }
        mounts.add(HostTmp.HOST_TMP);
        for (String b : binds) {
            if (b.startsWith("/tmp/") && !b.startsWith(HostTmp.HOST_TMP + "/")) {
                mounts.add(b);
                for (Path p = Path.of(b).getParent(); p != null && !p.equals(Path.of("/tmp")); p = p.getParent()) {
                    ways.add(p.toString());
                }
            }
        }
    }

    /** Why the last {@link #clean} failed. */
    String why() {
        return why;
    }

    boolean clean() {
        try {
            return shared("/dev/shm") && shared("/tmp") && tidy("/tmp");
        } catch (IOException | RuntimeException e) {
            why = e.toString();
            return false;
        }
    }

    /** A 1777 dir of the agent's user, as bwrap made it. */
    private boolean shared(String inside) throws IOException {
        Path dir = rootfs.resolve(inside.substring(1));
        int mode = (Integer) Files.getAttribute(dir, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
        int uid = (Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        if (mode != 01777 || uid != owner) {
            why = inside + " is " + Integer.toOctalString(mode) + " of uid " + uid;
            return false;
        }
        if (inside.equals("/dev/shm")) {
            try (Stream<Path> in = Files.list(dir)) {
                for (Path p : in.toList()) {
                    remove(p);
                }
            }
        }
        return true;
    }

    /** Removes what the job left in the room's dir {@code inside} (bwrap's own entries stay). */
    private boolean tidy(String inside) throws IOException {
        Path dir = rootfs.resolve(inside.substring(1));
        List<Path> entries;
        try (Stream<Path> in = Files.list(dir)) {
            entries = in.toList();
        }
        for (Path p : entries) {
            String name = p.getFileName().toString();
            String path = inside + "/" + name;
            if (mounts.contains(path) || (jobsAreOthers && (ways.contains(path) || links.containsKey(path)))) {
                continue; // bwrap's, and no job of another user could have changed it
            }
            if (ways.contains(path)) {
                if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) || !tidy(path)) {
                    why = why.isEmpty() ? path + " is not the dir bwrap made" : why;
                    return false;
                }
                continue;
            }
            String target = inside.equals("/tmp") ? links.get(path) : null;
            if (target != null) {
                if (!Files.isSymbolicLink(p)
                        || !Files.readSymbolicLink(p).toString().equals(target)) {
                    why = path + " is not the link bwrap made";
                    return false;
                }
                continue;
            }
            remove(p);
        }
        return true;
    }

    /** Removes {@code p} and all in it, following no link. */
    private static void remove(Path p) throws IOException {
        try (Stream<Path> all = Files.walk(p)) {
            for (Path q : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(q);
            }
        }
    }
}
