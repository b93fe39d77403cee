package dev.warmpool.agent.room;

import dev.warmpool.agent.io.AgentLog;
import dev.warmpool.protocol.AgentEnv;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A processor's bounds on CPU, memory and processes, held on its room (the resident bwrap and all
 * it starts, or a job's own process): by a cgroup of the processor's own where this user may make
 * one (see {@link Cgroups}), else by rlimits ({@code RLIMIT_NPROC}, which counts the processes of
 * the jobs' uid, and {@code RLIMIT_AS}, each process's address space; no CPU bound). The local
 * runtime passes the pool's bounds in {@link #CPU_ENV}, {@link #MEMORY_ENV} and {@link #PIDS_ENV}.
 */
public final class RoomLimits {
    /** The pool's {@code resources.limits.cpu}, in thousandths of a core. */
    public static final String CPU_ENV = "WARMPOOL_LIMIT_CPU_MILLIS";
    /** The pool's {@code resources.limits.memory}, in bytes. */
    public static final String MEMORY_ENV = "WARMPOOL_LIMIT_MEMORY_BYTES";
    /** The pool's {@code resources.limits.pids}, or {@code warmpool.runtime.pids-limit}. */
    public static final String PIDS_ENV = "WARMPOOL_LIMIT_PIDS";

    static final Path CGROUP_ROOT = Path.of("/sys/fs/cgroup");

    /** What one processor's room may use: cpu in thousandths of a core, memory in bytes, processes (threads too); 0: unbounded. */
    public record Bounds(long cpuMillis, long memoryBytes, long pids) {
        public static final Bounds NONE = new Bounds(0, 0, 0);

        static Bounds fromEnv(Map<String, String> env) {
            return new Bounds(number(env, CPU_ENV), number(env, MEMORY_ENV), number(env, PIDS_ENV));
        }

        private static long number(Map<String, String> env, String name) {
            String v = env.get(name);
            try {
                return v == null || v.isBlank() ? 0 : Math.max(0, Long.parseLong(v.trim()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        name + "=" + v + " is not a whole number; the runtime that starts the agent sets it", e);
            }
        }

        /** The variables an agent reads them from. */
        public Map<String, String> environment() {
            Map<String, String> env = new LinkedHashMap<>();
            if (cpuMillis > 0) {
                env.put(CPU_ENV, Long.toString(cpuMillis));
            }
            if (memoryBytes > 0) {
                env.put(MEMORY_ENV, Long.toString(memoryBytes));
            }
            if (pids > 0) {
                env.put(PIDS_ENV, Long.toString(pids));
            }
            return env;
        }

        boolean none() {
            return cpuMillis == 0 && memoryBytes == 0 && pids == 0;
        }

        @Override
        public String toString() {
            List<String> out = new ArrayList<>();
            out.add("cpu " + (cpuMillis == 0 ? "unbounded" : cpuMillis + "m"));
            out.add("memory " + (memoryBytes == 0 ? "unbounded" : memoryBytes / (1024 * 1024) + " MiB"));
            out.add("pids " + (pids == 0 ? "unbounded" : Long.toString(pids)));
            return String.join(", ", out);
        }
    }

    /** This agent's, read once from its environment (one processor per agent). */
    private static RoomLimits processor;

    private final String processorId;
    private final Bounds bounds;
    /** Null where the host gives this user no cgroup: then rlimits. */
    private final Cgroups cgroups;
    /** Why there is no cgroup (with {@link #cgroups} null). */
    private final String noCgroup;

    private boolean told;

    RoomLimits(String processorId, Bounds bounds, Cgroups cgroups, String noCgroup) {
        this.processorId = processorId;
        this.bounds = bounds;
        this.cgroups = cgroups;
        this.noCgroup = noCgroup;
    }

    /** The bounds of processor {@code processorId} on this host: cgroups where this user may make them. */
    public static RoomLimits of(String processorId, Bounds bounds) {
        try {
            return new RoomLimits(processorId, bounds, hostCgroups(), null);
        } catch (Cgroups.Unavailable e) {
            return new RoomLimits(processorId, bounds, null, e.getMessage());
        }
    }

    /** This agent's bounds, from the variables its runtime set ({@link #CPU_ENV}, ...); none when unset. */
    public static synchronized RoomLimits processor() {
        if (processor == null) {
            Map<String, String> env = System.getenv();
            Bounds b = Bounds.fromEnv(env);
            processor = b.none()
                    ? new RoomLimits("", b, null, "no bounds asked")
                    : of(env.getOrDefault(AgentEnv.PROCESSOR_ID, "unknown"), b);
        }
        return processor;
    }

    private static Cgroups hostCgroups() throws Cgroups.Unavailable {
        String self;
        try {
            self = Files.readString(Path.of("/proc/self/cgroup"));
        } catch (IOException e) {
            throw new Cgroups.Unavailable("cannot read /proc/self/cgroup: " + e.getMessage());
        }
        return Cgroups.find(CGROUP_ROOT, self);
    }

    /**
     * Bounds the process {@code pid} and every process it has started (they count together, and
     * what they start later is bounded with them): moved into the processor's cgroup, or given
     * the rlimits. Call it before the room runs a job. When a bound cannot be set, {@code pid} is
     * killed and this throws: a room without its bounds runs no job.
     */
    public synchronized void apply(long pid) throws IOException {
        if (bounds.none()) {
            return;
        }
        if (!told) {
            told = true;
            AgentLog.log("processor %s is bounded (%s) by %s", processorId, bounds, describe());
        }
        try {
            if (cgroups != null) {
                List<Path> dirs = cgroups.make(processorId, bounds);
                tree(pid, p -> Cgroups.move(dirs, p));
            } else {
                List<String> args = rlimitArgs();
                if (!args.isEmpty() && Files.isExecutable(Path.of(PRLIMIT))) {
                    tree(pid, p -> prlimit(p, args));
                }
            }
        } catch (IOException | RuntimeException e) {
            ProcessHandle.of(pid).ifPresent(h -> {
                h.descendants().forEach(ProcessHandle::destroyForcibly);
                h.destroyForcibly();
            });
            throw new IOException("could not bound the job's room (" + describe() + "): " + e.getMessage(), e);
        }
    }

    private interface Step {
        boolean on(long pid) throws IOException;
    }

    /**
     * {@code step} on {@code pid}, then on its descendants until a pass finds none new: a child a
     * descendant forked before it was moved is in the next pass; one forked after is born bounded.
     */
    private static void tree(long pid, Step step) throws IOException {
        if (!step.on(pid)) {
            return;
        }
        Set<Long> done = new HashSet<>(List.of(pid));
        for (int pass = 0; pass < 5; pass++) {
            List<Long> fresh = ProcessHandle.of(pid).stream()
                    .flatMap(ProcessHandle::descendants)
                    .map(ProcessHandle::pid)
                    .filter(p -> !done.contains(p))
                    .toList();
            if (fresh.isEmpty()) {
                return;
            }
            for (long p : fresh) {
                step.on(p);
                done.add(p);
            }
        }
    }

    static final String PRLIMIT = "/usr/bin/prlimit";

    /** prlimit's settings for the bounds: soft and hard alike, so a job cannot raise them again. */
    List<String> rlimitArgs() {
        List<String> out = new ArrayList<>();
        if (bounds.pids() > 0) {
            out.add("--nproc=" + bounds.pids() + ":" + bounds.pids());
        }
        if (bounds.memoryBytes() > 0) {
            out.add("--as=" + bounds.memoryBytes() + ":" + bounds.memoryBytes());
        }
        return out;
    }

    private static boolean prlimit(long pid, List<String> args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(PRLIMIT, "--pid", Long.toString(pid)));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("prlimit did not answer within 5 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
        String out = new String(p.getInputStream().readAllBytes()).trim();
        if (p.exitValue() != 0) {
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                throw new IOException("prlimit --pid " + pid + " failed: " + out);
            }
            return false;
        }
        return true;
    }

    /** What holds the bounds here, for the log. */
    public String describe() {
        if (cgroups != null) {
            return cgroups.describe()
                    + (bounds.cpuMillis() > 0 && !cgroups.hasCpu() ? " (no cpu controller: cpu not bounded)" : "");
        }
        return "rlimits (RLIMIT_NPROC for the jobs' uid, RLIMIT_AS per process; cpu not bounded"
                + (Files.isExecutable(Path.of(PRLIMIT)) ? "" : "; NOT APPLIED: no " + PRLIMIT + ", install util-linux")
                + ") because " + noCgroup;
    }

    /**
     * Removes the cgroups of a processor that has gone, ending what is left in them. Returns those
     * it could not remove (still busy: the next start sweeps them); none where there are no cgroups.
     */
    public static List<Path> remove(String processorId) {
        try {
            return hostCgroups().remove(processorId);
        } catch (Cgroups.Unavailable e) {
            return List.of();
        }
    }

    /** Removes the empty cgroups of processors that are not in {@code live}: leftovers of agents that died with their manager. */
    public static List<String> sweep(Set<String> live) {
        try {
            return hostCgroups().sweep(live);
        } catch (Cgroups.Unavailable e) {
            return List.of();
        }
    }

    /** What holds a pool's bounds on this host, said once at the manager's start. */
    public static String host() {
        try {
            return hostCgroups().describe();
        } catch (Cgroups.Unavailable e) {
            return new RoomLimits("", Bounds.NONE, null, e.getMessage()).describe();
        }
    }
}
