package dev.warmpool.agent.room;

import dev.warmpool.agent.io.AgentLog;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * What a local room covers of the host beyond the manager's own secrets: the manager user's home
 * when the agent is not root (its jobs run as that user, so its keys, tokens and configs would
 * be theirs), with only the paths the pool names bound back read-only (and its workingDir, which
 * the room binds writable); and /run (with /var/run, when that is not a link to it), where the
 * host's daemons keep their sockets (docker.sock: root-equivalent for a member of group docker).
 */
final class RoomCover {
    private final Path home;

    RoomCover(Path home) {
        this.home = home;
    }

    /** The cover for this agent: its home is hidden unless it runs as root (a root manager's jobs are nobody). */
    static RoomCover forAgent() {
        Path home = null;
        try {
            int uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            String h = System.getenv("HOME");
            if (uid != 0 && h != null && !h.isBlank()) {
                Path p = Path.of(h).toAbsolutePath().normalize();
                if (p.getParent() != null && Files.isDirectory(p)) {
                    home = p;
                }
            }
        } catch (IOException | RuntimeException e) {
            AgentLog.log("could not tell whether to hide the agent's home: %s", e.getMessage());
        }
        return new RoomCover(home);
    }

    /** The home this cover hides, or null. */
    Path home() {
        return home;
    }

    /**
     * bwrap's arguments, after the room's own: /run (and /var/run) and the home under an empty
     * tmpfs, the existing paths of {@code named} that lie in the home (and under none of {@code
     * hide}) bound back read-only, mount points made for {@code workingDir} and the processor's
     * {@code root} that the room binds later. {@code resident}: a room kept across jobs, whose
     * tmpfs a job must not leave files in for the next: read-only.
     */
    List<String> bwrapArgs(List<String> named, List<String> hide, String workingDir, Path root, boolean resident) {
        List<String> out = new ArrayList<>();
        List<String> readOnly = new ArrayList<>();
        for (String run : runDirs()) {
            out.addAll(List.of("--tmpfs", run));
            readOnly.add(run);
        }
        Path resolv = resolvTarget();
        if (resolv != null) {
            out.addAll(List.of("--ro-bind", resolv.toString(), resolv.toString())); // the host's DNS, if it is there
        }
        if (home != null) {
            out.addAll(List.of("--tmpfs", home.toString()));
            readOnly.add(home.toString());
            for (String p : boundBack(named, hide)) {
                out.addAll(List.of("--ro-bind", p, p));
            }
            for (String own : new String[] {workingDir, root == null ? null : root.toString()}) {
                if (own != null && Path.of(own).toAbsolutePath().normalize().startsWith(home)) {
                    out.addAll(List.of("--dir", own)); // a mount point the room binds after these
                }
            }
        }
        if (resident) {
            readOnly.forEach(d -> out.addAll(List.of("--remount-ro", d)));
        }
        return out;
    }

    /** /run, and /var/run when it is a dir of its own. */
    static List<String> runDirs() {
        List<String> out = new ArrayList<>();
        for (String d : List.of("/run", "/var/run")) {
            if (Files.isDirectory(Path.of(d), LinkOption.NOFOLLOW_LINKS)) {
                out.add(d);
            }
        }
        return out;
    }

    /** /etc/resolv.conf's file when it is a link into /run (systemd-resolved's), else null. */
    static Path resolvTarget() {
        try {
            Path conf = Path.of("/etc/resolv.conf");
            if (!Files.isSymbolicLink(conf)) {
                return null;
            }
            Path real = conf.toRealPath();
            return real.startsWith("/run") || real.startsWith("/var/run") ? real : null;
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * The paths of {@code named} (the pool's command and env values, each split at {@code :}) that
     * are absolute, exist and lie inside the home, and under no hidden path: what is bound back.
     */
    List<String> boundBack(List<String> named, List<String> hide) {
        Set<String> out = new LinkedHashSet<>();
        if (home == null) {
            return List.of();
        }
        for (String value : named) {
            for (String part : value.split(File.pathSeparator)) {
                if (!part.startsWith("/")) {
                    continue;
                }
                Path p;
                try {
                    p = Path.of(part).normalize();
                } catch (RuntimeException e) {
                    continue;
                }
                if (p.startsWith(home)
                        && !p.equals(home)
                        && Files.exists(p)
                        && hide.stream().noneMatch(h -> p.startsWith(Path.of(h)))) {
                    out.add(p.toString());
                }
            }
        }
        return List.copyOf(out);
    }

    /** Removes everything in {@code jobs} but {@code keep}: what an earlier job left there. */
    static void emptyBut(Path jobs, Path keep) {
        try (Stream<Path> all = Files.list(jobs)) {
            all.filter(p -> !p.equals(keep)).forEach(Sandbox::remove);
        } catch (IOException e) {
            AgentLog.log("could not empty %s: %s", jobs, e.getMessage());
        }
    }
}
