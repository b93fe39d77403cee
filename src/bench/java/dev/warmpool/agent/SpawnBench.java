package dev.warmpool.agent;

import com.sun.management.OperatingSystemMXBean;
import dev.warmpool.agent.room.ResidentRoom;
import dev.warmpool.agent.room.Sandbox;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What one job's {@code true} costs through the agent's own launch path ({@link JobRun} on a
 * {@link Sandbox} as the local runtime sets it up: bwrap, the state dir hidden, a uid of the
 * processor's own for a root agent): a bwrap per job (the fallback, with no wp-room) against the
 * processor's resident room (wp-room as its init), alternated round by round, p50 per round and
 * the median of the rounds; the room's CPU a job (its init and the jobs it reaped) beside a bare
 * fork+exec of {@code true} from a shell loop, measured in the same round; the mean and the rooms
 * started in the round (a room replaced for a change of the host's /tmp shows there: run it beside
 * a loop that makes and removes a file in /tmp, as a busy host does).
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
        List<Double> roomCpu = new ArrayList<>();
        List<Double> bareCpu = new ArrayList<>();
        try {
            for (int round = 1; round <= rounds; round++) {
                for (String mode : List.of("bwrap per job", "resident room")) {
                    Path dir = Files.createDirectory(base.resolve(mode.charAt(0) + "-" + round));
                    // without wp-room there is no room: a bwrap per job
                    boolean resident = mode.startsWith("resident");
                    Sandbox s = processor(state, dir, resident);
                    try {
                        one(s, "warm", true); // the room's start (or the first bwrap) is not a job's cost here
                        List<Double> ms = new ArrayList<>();
                        long cpu0 = OS.getProcessCpuTime();
                        long room0 = resident ? roomCpuNanos(s) : 0;
                        long rooms0 = resident ? s.room(null).started() : 0;
                        int failed = 0;
                        for (int i = 0; i < n; i++) {
                            long t0 = System.nanoTime();
                            failed += one(s, "j" + i, false) ? 0 : 1;
                            ms.add((System.nanoTime() - t0) / 1e6);
                        }
                        double cpuMs = (OS.getProcessCpuTime() - cpu0) / 1e6 / n;
                        cpu.computeIfAbsent(mode, k -> new ArrayList<>()).add(cpuMs);
                        Collections.sort(ms);
                        double p50 = ms.get(ms.size() / 2);
                        double mean = ms.stream()
                                .mapToDouble(Double::doubleValue)
                                .average()
                                .orElse(0);
                        p50s.computeIfAbsent(mode, k -> new ArrayList<>()).add(p50);
                        String room = "";
                        if (resident) {
                            double roomMs = (roomCpuNanos(s) - room0) / 1e6 / n;
                            double bare = bareSpawnCpuMs(n);
                            roomCpu.add(roomMs);
                            bareCpu.add(bare);
                            room = String.format(
                                    "  room CPU %5.2f ms a job (bare fork+exec %5.2f, ratio %.2f)  rooms started %s",
                                    roomMs,
                                    bare,
                                    roomMs / bare,
                                    s.room(null) == null
                                            ? "- (given up)"
                                            : s.room(null).started() - rooms0);
                        }
                        System.out.printf(
                                "round %d  %-14s p50 %6.2f ms  p90 %6.2f ms  mean %6.2f ms  failed %d  agent CPU %5.2f ms a job%s%n",
                                round, mode, p50, ms.get(ms.size() * 9 / 10), mean, failed, cpuMs, room);
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
                root ? "as the processor's uid" : "as the agent's user", rounds, before, after, after / before);
        System.out.printf(
                "the agent's (this JVM's) CPU a job, median of the rounds: bwrap per job %.2f ms, resident room %.2f ms%n",
                median(cpu.get("bwrap per job")), median(cpu.get("resident room")));
        System.out.printf(
                "the room's CPU a job (wp-room and the job's `true`), median of the rounds: %.2f ms; a bare fork+exec"
                        + " of `true` from a shell loop: %.2f ms; ratio %.2f%n",
                median(roomCpu), median(bareCpu), median(roomCpu) / median(bareCpu));
    }

    /** CPU of the room's init and all it reaped (its jobs): utime + stime + cutime + cstime. */
    private static long roomCpuNanos(Sandbox s) throws IOException {
        ResidentRoom r = s.room(null);
        if (r == null) {
            return 0; // given up: a bwrap per job
        }
        long init = ProcessHandle.of(r.pid())
                .flatMap(b -> b.children().findFirst())
                .orElseThrow()
                .pid();
        String stat = Files.readString(Path.of("/proc", Long.toString(init), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
        return ticks * 10_000_000L; // USER_HZ is 100 on Linux
    }

    /** CPU a bare fork+exec of `true` costs, from a bash loop of {@code n}, as bash's {@code times} says (ms). */
    static double bareSpawnCpuMs(int n) throws Exception {
        Process p = new ProcessBuilder("bash", "-c", "for ((i = 0; i < " + n + "; i++)); do /bin/true; done; times")
                .redirectErrorStream(true)
                .start();
        String[] lines = new String(p.getInputStream().readAllBytes()).trim().split("\n");
        p.waitFor();
        // the second line: the children's user and system time, e.g. "0m0.120s 0m0.240s"
        double total = 0;
        for (String t : lines[lines.length - 1].trim().split("\\s+")) {
            int m = t.indexOf('m');
            total +=
                    Double.parseDouble(t.substring(0, m)) * 60 + Double.parseDouble(t.substring(m + 1, t.length() - 1));
        }
        return total * 1000 / n;
    }

    /** wp-room as the build makes it. */
    static final Path INIT = Path.of("target", "wp-room").toAbsolutePath();

    /** A processor's sandbox as the local runtime sets it up (bwrap, the state dir hidden, a uid of its own for root). */
    private static Sandbox processor(Path state, Path dir, boolean resident) throws IOException {
        Map<String, String> env = new HashMap<>(Map.of(
                "WARMPOOL_SANDBOX", "bwrap", "WARMPOOL_SANDBOX_HIDE", state.toString(), "PATH", System.getenv("PATH")));
        if (resident) {
            env.put("WARMPOOL_ROOM_INIT", INIT.toString());
        }
        if ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0) {
            env.put("WARMPOOL_JOB_UIDS", "1879048192-1879113727");
        }
        return Sandbox.fromEnv(env, dir);
    }

    /**
     * The ceiling of sandboxed jobs: `true` started back to back through {@code threads}
     * processors' resident rooms at once (each job as its processor's uid for a root JVM, the room
     * cleared after it by its init), by the agent's own launch path ({@link JobRun}) and nothing
     * else: no Redis, no manager. Jobs per second; -1 without bubblewrap and wp-room here (no rooms).
     */
    public static double roomCeiling(int threads, int perThread) throws Exception {
        String path = System.getenv("PATH");
        if (ResidentRoom.onPath("bwrap", path).isEmpty() || !Files.isExecutable(INIT)) {
            return -1;
        }
        Path base = AgentDirs.newRoot("roomceiling");
        Path state = Files.createTempDirectory("roomceiling-state");
        List<Sandbox> rooms = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int t = 0; t < threads; t++) {
                Sandbox s = processor(state, Files.createDirectory(base.resolve("r" + t)), true);
                rooms.add(s);
                one(s, "warm", true); // the room's start is not a job's cost
            }
            List<Future<?>> all = new ArrayList<>();
            long t0 = System.nanoTime();
            for (Sandbox s : rooms) {
                all.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        one(s, "j" + i, true);
                    }
                    return null;
                }));
            }
            for (Future<?> f : all) {
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

    private static final OperatingSystemMXBean OS =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** One job of {@code true}; false when it failed (thrown when {@code strict}). */
    private static boolean one(Sandbox s, String id, boolean strict) throws Exception {
        Path dir = s.newJobDir(id);
        AtomicReference<JobRun.Outcome> out = new AtomicReference<>();
        JobRun run = new JobRun(
                new JobRun.Launch(id, "t", List.of("true"), Map.of("PATH", "/usr/bin:/bin"), null, 0, dir),
                s,
                JobRun.Hooks.endOnly(out::set));
        run.run();
        run.cleanUp(); // the room swept and the dir removed, as the agent does after recording the end
        boolean ok = "SUCCEEDED".equals(out.get().state());
        if (!ok && strict) {
            throw new IllegalStateException(out.get().error() + " " + out.get().logTail());
        }
        return ok;
    }

    private static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }
}
