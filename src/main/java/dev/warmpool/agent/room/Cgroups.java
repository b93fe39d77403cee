package dev.warmpool.agent.room;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The cgroups of a host's processors, one per processor, under a {@code warmpool} dir: for cgroup
 * v1 one dir per controller below the cgroup this process is in ({@code
 * /sys/fs/cgroup/memory/<own>/warmpool/<processor>}: v1 lets a cgroup with processes have
 * children, so whatever bounds the host put on the manager's cgroup still hold above the pools');
 * for cgroup v2 {@code /sys/fs/cgroup/warmpool/<processor>} (v2 lets a cgroup hand controllers to
 * its children only when it has no processes of its own, which the manager's cgroup has).
 */
final class Cgroups {
    static final String DIR = "warmpool";
    static final String CPU = "cpu";
    static final String MEMORY = "memory";
    static final String PIDS = "pids";
    /** The CFS period (100 ms, the kernel's default): a quota of {@code cores * period} per period. */
    static final long PERIOD_US = 100_000;

    enum Version {
        V1,
        V2
    }

    /** Why this host gives no cgroup to this user: the reason is said in the log and docs. */
    static final class Unavailable extends Exception {
        Unavailable(String why) {
            super(why);
        }
    }

    private final Version version;
    /** v1: each controller's {@code warmpool} dir; v2: the one {@code warmpool} dir, under every controller's name. */
    private final Map<String, Path> bases;
    /** v2: the hierarchy's root, whose {@code cgroup.subtree_control} must hand the controllers down. */
    private final Path root;

    private Cgroups(Version version, Map<String, Path> bases, Path root) {
        this.version = version;
        this.bases = bases;
        this.root = root;
    }

    /**
     * The cgroups this user may make under {@code root} (normally /sys/fs/cgroup), this process
     * being in the cgroups {@code selfCgroup} names (the text of /proc/self/cgroup). Memory and
     * pids are required; cpu is used where there is one.
     */
    static Cgroups find(Path root, String selfCgroup) throws Unavailable {
        if (Files.isRegularFile(root.resolve("cgroup.controllers"))) {
            return v2(root);
        }
        Map<String, String> own = ownPaths(selfCgroup);
        Map<String, Path> bases = new LinkedHashMap<>();
        for (String c : List.of(MEMORY, PIDS, CPU)) {
            Path mount = root.resolve(c);
            if (!Files.isRegularFile(mount.resolve("cgroup.procs"))) {
                if (c.equals(CPU)) {
                    continue;
                }
                throw new Unavailable("no cgroup v1 " + c + " controller at " + mount + " and no cgroup v2 at " + root);
            }
            Path parent = mount.resolve(own.getOrDefault(c, "/").substring(1));
            if (!Files.isWritable(parent)) {
                throw new Unavailable("cgroup v1 " + parent + " is not writable by this user (uid " + uid() + ")");
            }
            bases.put(c, parent.resolve(DIR));
        }
        return new Cgroups(Version.V1, bases, root);
    }

    private static Cgroups v2(Path root) throws Unavailable {
        List<String> has;
        try {
            has = List.of(
                    Files.readString(root.resolve("cgroup.controllers")).trim().split("\\s+"));
        } catch (IOException e) {
            throw new Unavailable("cannot read " + root.resolve("cgroup.controllers") + ": " + e.getMessage());
        }
        for (String c : List.of(MEMORY, PIDS)) {
            if (!has.contains(c)) {
                throw new Unavailable("cgroup v2 at " + root + " has no " + c + " controller");
            }
        }
        if (!Files.isWritable(root) || !Files.isWritable(root.resolve("cgroup.subtree_control"))) {
            throw new Unavailable("cgroup v2 " + root + " is not writable by this user (uid " + uid()
                    + "): run the manager as root for cgroups");
        }
        Map<String, Path> bases = new LinkedHashMap<>();
        for (String c : List.of(MEMORY, PIDS, CPU)) {
            if (has.contains(c)) {
                bases.put(c, root.resolve(DIR));
            }
        }
        return new Cgroups(Version.V2, bases, root);
    }

    /** Controller name -> this process's cgroup path in its v1 hierarchy ({@code 4:memory:/a/b}, {@code 2:cpu,cpuacct:/}). */
    static Map<String, String> ownPaths(String selfCgroup) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : selfCgroup.split("\n")) {
            String[] f = line.split(":", 3);
            if (f.length == 3 && !f[1].isEmpty()) {
                for (String c : f[1].split(",")) {
                    out.put(c, f[2].startsWith("/") ? f[2] : "/" + f[2]);
                }
            }
        }
        return out;
    }

    private static String uid() {
        try {
            return Files.getAttribute(Path.of("/proc/self"), "unix:uid").toString();
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    Version version() {
        return version;
    }

    /** Whether CPU can be bounded here (the cpu controller is mounted, or enabled on v2). */
    boolean hasCpu() {
        return bases.containsKey(CPU);
    }

    String describe() {
        return "cgroup " + version.name().toLowerCase(Locale.ROOT) + " ("
                + String.join(", ", bases.keySet()) + ") under "
                + String.join(
                        ", ",
                        bases.values().stream().distinct().map(Path::toString).toList());
    }

    /**
     * Makes (or re-bounds) the processor's cgroups: one per controller that has a bound (v1), or
     * one (v2); a bound of 0 writes none. Returns the dirs a process joins.
     */
    List<Path> make(String processorId, RoomLimits.Bounds b) throws IOException {
        return version == Version.V1 ? makeV1(processorId, b) : makeV2(processorId, b);
    }

    private List<Path> makeV1(String processorId, RoomLimits.Bounds b) throws IOException {
        List<Path> dirs = new ArrayList<>();
        if (b.memoryBytes() > 0) {
            Path d = dir(MEMORY, processorId);
            write(d.resolve("memory.limit_in_bytes"), Long.toString(b.memoryBytes()));
            // memory+swap no higher than memory: a job does not get past its bound by swapping
            writeIfThere(d.resolve("memory.memsw.limit_in_bytes"), Long.toString(b.memoryBytes()));
            dirs.add(d);
        }
        if (b.pids() > 0) {
            Path d = dir(PIDS, processorId);
            write(d.resolve("pids.max"), Long.toString(b.pids()));
            dirs.add(d);
        }
        if (b.cpuMillis() > 0 && hasCpu()) {
            Path d = dir(CPU, processorId);
            write(d.resolve("cpu.cfs_period_us"), Long.toString(PERIOD_US));
            write(d.resolve("cpu.cfs_quota_us"), Long.toString(quotaUs(b.cpuMillis())));
            dirs.add(d);
        }
        return dirs;
    }

    private List<Path> makeV2(String processorId, RoomLimits.Bounds b) throws IOException {
        Path base = bases.get(MEMORY);
        enableIn(root);
        Files.createDirectories(base);
        enableIn(base);
        Path d = base.resolve(processorId);
        Files.createDirectories(d);
        write(d.resolve("memory.max"), b.memoryBytes() > 0 ? Long.toString(b.memoryBytes()) : "max");
        if (b.memoryBytes() > 0) {
            writeIfThere(d.resolve("memory.swap.max"), "0");
        }
        write(d.resolve("pids.max"), b.pids() > 0 ? Long.toString(b.pids()) : "max");
        if (hasCpu()) {
            write(
                    d.resolve("cpu.max"),
                    (b.cpuMillis() > 0 ? Long.toString(quotaUs(b.cpuMillis())) : "max") + " " + PERIOD_US);
        }
        return List.of(d);
    }

    /**
     * Hands the controllers down from {@code dir} to its children, unless it already does. The
     * kernel refuses cpu while a realtime process runs outside the root cgroup: then CPU goes
     * unbounded (said in the log) and memory and pids still hold.
     */
    private synchronized void enableIn(Path dir) throws IOException {
        Path control = dir.resolve("cgroup.subtree_control");
        String now = Files.exists(control) ? Files.readString(control) : "";
        if (List.of(now.trim().split("\\s+")).containsAll(bases.keySet())) {
            return;
        }
        try {
            write(
                    control,
                    String.join(" ", bases.keySet().stream().map(c -> "+" + c).toList()));
        } catch (IOException e) {
            if (!bases.containsKey(CPU)) {
                throw e;
            }
            bases.remove(CPU);
            write(control, "+" + MEMORY + " +" + PIDS);
        }
    }

    /** A quota of {@code millis} thousandths of a core per period; the kernel takes no less than 1 ms. */
    static long quotaUs(long millis) {
        return Math.max(1000, millis * PERIOD_US / 1000);
    }

    private Path dir(String controller, String processorId) throws IOException {
        Path d = bases.get(controller).resolve(processorId);
        Files.createDirectories(d);
        return d;
    }

    /** Moves the process {@code pid} into {@code dirs}; false when it has gone meanwhile. */
    static boolean move(List<Path> dirs, long pid) throws IOException {
        for (Path d : dirs) {
            try {
                write(d.resolve("cgroup.procs"), Long.toString(pid));
            } catch (IOException e) {
                if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    throw new IOException("could not move process " + pid + " into " + d + ": " + e.getMessage(), e);
                }
                return false; // ESRCH: it ended
            }
        }
        return true;
    }

    /** The processor's cgroup dirs that exist now. */
    List<Path> existing(String processorId) {
        return bases.values().stream()
                .distinct()
                .map(b -> b.resolve(processorId))
                .filter(Files::isDirectory)
                .toList();
    }

    /**
     * Ends what is left in the processor's cgroups (its agent is gone: a room's bwrap follows it,
     * and nothing else may stay) and removes them. Returns the dirs it could not remove.
     */
    List<Path> remove(String processorId) {
        List<Path> left = new ArrayList<>();
        for (Path d : existing(processorId)) {
            List<CompletableFuture<ProcessHandle>> ends = new ArrayList<>();
            for (long pid : procs(d)) {
                ProcessHandle.of(pid).ifPresent(h -> {
                    h.destroyForcibly();
                    ends.add(h.onExit());
                });
            }
            try {
                CompletableFuture.allOf(ends.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                // what did not end in time keeps its cgroup: the next sweep tries again
            }
            if (!rmdir(d)) {
                left.add(d);
            }
        }
        return left;
    }

    /**
     * Removes the empty cgroups of processors not in {@code live} (leftovers of agents that died
     * with their manager). A cgroup that still holds processes is left alone: it may be another
     * warmpool's on this host, whose processors this one does not know.
     */
    List<String> sweep(Set<String> live) {
        List<String> removed = new ArrayList<>();
        for (Path base : bases.values().stream().distinct().toList()) {
            if (!Files.isDirectory(base)) {
                continue;
            }
            try (DirectoryStream<Path> dirs = Files.newDirectoryStream(base, Files::isDirectory)) {
                for (Path d : dirs) {
                    String id = d.getFileName().toString();
                    if (!live.contains(id) && procs(d).isEmpty() && rmdir(d)) {
                        removed.add(id);
                    }
                }
            } catch (IOException e) {
                // unreadable now: the next start sweeps again
            }
        }
        return removed;
    }

    /** The processes in a cgroup dir. */
    static List<Long> procs(Path dir) {
        try {
            String text = Files.readString(dir.resolve("cgroup.procs"));
            return text.isBlank()
                    ? List.of()
                    : text.lines()
                            .filter(l -> !l.isBlank())
                            .map(l -> Long.parseLong(l.trim()))
                            .toList();
        } catch (IOException | NumberFormatException e) {
            return List.of();
        }
    }

    /** rmdir of a cgroup (the kernel's control files go with it); a few tries while its last processes are reaped. */
    private static boolean rmdir(Path d) {
        for (int i = 0; i < 20; i++) {
            try {
                Files.deleteIfExists(d);
                return true;
            } catch (IOException e) {
                if (!(e instanceof FileSystemException) || e instanceof DirectoryNotEmptyException) {
                    return false;
                }
                LockSupport.parkNanos(50_000_000L);
            }
        }
        return false;
    }

    private static void write(Path file, String value) throws IOException {
        Files.writeString(file, value, StandardCharsets.US_ASCII);
    }

    private static void writeIfThere(Path file, String value) throws IOException {
        if (Files.exists(file)) {
            try {
                write(file, value);
            } catch (NoSuchFileException e) {
                // not on this kernel
            }
        }
    }

    Optional<Path> base(String controller) {
        return Optional.ofNullable(bases.get(controller));
    }
}
