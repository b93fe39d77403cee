package dev.warmpool.agent;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What one job's {@code true} costs through the agent's own launch path ({@link JobRun} on a
 * {@link Sandbox} as the local runtime sets it up: bwrap, the state dir hidden, nobody for a root
 * agent): a bwrap per job (the fallback, with no {@code unshare} found) against the processor's
 * resident room, alternated round by round, p50 per round and the median of the rounds.
 *
 * <pre>
 *   java -cp "target/test-classes:target/classes:$(cat target/bench.classpath)" dev.warmpool.agent.SpawnBench [jobs] [rounds]
 * </pre>
 */
public final class SpawnBench {
    private SpawnBench() {}

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 150;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        boolean root = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0;
        Path base = AgentDirs.newRoot("spawnbench");
        Path state = Files.createTempDirectory("spawnbench-state");
        Map<String, List<Double>> p50s = new HashMap<>();
        Map<String, List<Double>> cpu = new HashMap<>();
        try {
            for (int round = 1; round <= rounds; round++) {
                for (String mode : List.of("bwrap per job", "resident room")) {
                    Path dir = Files.createDirectory(base.resolve(mode.charAt(0) + "-" + round));
                    // without unshare on the agent's PATH there is no room: a bwrap per job
                    Sandbox s =
                            processor(state, dir, mode.startsWith("resident") ? System.getenv("PATH") : "/nonexistent");
                    try {
                        one(s, "warm"); // the room's start (or the first bwrap) is not a job's cost here
                        List<Double> ms = new ArrayList<>();
                        long cpu0 = OS.getProcessCpuTime();
                        for (int i = 0; i < n; i++) {
                            long t0 = System.nanoTime();
                            one(s, "j" + i);
                            ms.add((System.nanoTime() - t0) / 1e6);
                        }
                        double cpuMs = (OS.getProcessCpuTime() - cpu0) / 1e6 / n;
                        cpu.computeIfAbsent(mode, k -> new ArrayList<>()).add(cpuMs);
                        Collections.sort(ms);
                        double p50 = ms.get(ms.size() / 2);
                        p50s.computeIfAbsent(mode, k -> new ArrayList<>()).add(p50);
                        System.out.printf(
                                "round %d  %-14s p50 %6.2f ms  p90 %6.2f ms  agent CPU %5.2f ms a job%n",
                                round, mode, p50, ms.get(ms.size() * 9 / 10), cpuMs);
                    } finally {
                        s.close();
                        Sandbox.remove(dir);
                    }
                }
            }
        } finally {
            Sandbox.remove(base);
            Sandbox.remove(state);
        }
        double before = median(p50s.get("bwrap per job"));
        double after = median(p50s.get("resident room"));
        System.out.printf(
                "one job's `true` (%s), median of %d rounds' p50: bwrap per job %.2f ms, resident room %.2f ms, ratio %.2f%n",
                root ? "as nobody" : "as the agent's user", rounds, before, after, after / before);
        System.out.printf(
                "the agent's (this JVM's) CPU a job, median of the rounds: bwrap per job %.2f ms, resident room %.2f ms%n",
                median(cpu.get("bwrap per job")), median(cpu.get("resident room")));
    }

    /** A processor's sandbox as the local runtime sets it up (bwrap, the state dir hidden, nobody for a root JVM). */
    private static Sandbox processor(Path state, Path dir, String path) throws java.io.IOException {
        Map<String, String> env = new HashMap<>(
                Map.of("WARMPOOL_SANDBOX", "bwrap", "WARMPOOL_SANDBOX_HIDE", state.toString(), "PATH", path));
        if ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0) {
            env.put("WARMPOOL_RUN_AS", "65534:65534");
        }
        return Sandbox.fromEnv(env, dir);
    }

    /**
     * The ceiling of sandboxed jobs: `true` started back to back through {@code threads}
     * processors' resident rooms at once (each job in its own PID, mount and IPC namespace, as
     * nobody for a root JVM, its room swept after it), by the agent's own launch path ({@link
     * JobRun}) and nothing else: no Redis, no manager. Jobs per second; -1 without bubblewrap and
     * unshare here (no rooms).
     */
    public static double roomCeiling(int threads, int perThread) throws Exception {
        String path = System.getenv("PATH");
        if (ResidentRoom.onPath("bwrap", path).isEmpty()
                || ResidentRoom.onPath("unshare", path).isEmpty()) {
            return -1;
        }
        Path base = AgentDirs.newRoot("roomceiling");
        Path state = Files.createTempDirectory("roomceiling-state");
        List<Sandbox> rooms = new ArrayList<>();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            for (int t = 0; t < threads; t++) {
                Sandbox s = processor(state, Files.createDirectory(base.resolve("r" + t)), System.getenv("PATH"));
                rooms.add(s);
                one(s, "warm"); // the room's start is not a job's cost
            }
            List<java.util.concurrent.Future<?>> all = new ArrayList<>();
            long t0 = System.nanoTime();
            for (Sandbox s : rooms) {
                all.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        one(s, "j" + i);
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : all) {
                f.get();
            }
            return threads * perThread * 1e9 / (System.nanoTime() - t0);
        } finally {
            pool.shutdown();
            rooms.forEach(Sandbox::close);
            Sandbox.remove(base);
            Sandbox.remove(state);
        }
    }

    private static final com.sun.management.OperatingSystemMXBean OS = (com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean();

    private static void one(Sandbox s, String id) throws Exception {
        Path dir = s.newJobDir(id);
        AtomicReference<JobRun.Outcome> out = new AtomicReference<>();
        JobRun run = new JobRun(
                id,
                "t",
                List.of("true"),
                Map.of("PATH", "/usr/bin:/bin"),
                null,
                0,
                dir,
                s,
                out::set,
                null,
                null,
                (r, json) -> {},
                () -> null);
        run.run();
        run.cleanUp(); // the room swept and the dir removed, as the agent does after recording the end
        if (!"SUCCEEDED".equals(out.get().state())) {
            throw new IllegalStateException(out.get().error() + " " + out.get().logTail());
        }
    }

    private static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }
}
