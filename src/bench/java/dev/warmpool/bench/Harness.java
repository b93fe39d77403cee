package dev.warmpool.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.ManagerProcess;
import dev.warmpool.auth.TokenFile;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.runtime.local.LocalAgents;
import dev.warmpool.store.RedisServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import redis.clients.jedis.Jedis;

/**
 * What every part of the benchmark stands on: a redis-server of its own, the packaged manager
 * started as its image runs it, calls to it, waits, and the CPU and memory of processes.
 */
final class Harness {
    /** The benchmark's own admin token: every manager it starts reads its hash from target/bench/tokens. */
    static final String TOKEN = "wp_bench_" + Long.toHexString(new SecureRandom().nextLong());
    /**
     * The JVM options of the images (src/main/docker/Dockerfile.jvm and Dockerfile.aot: C1 only, the
     * serial GC, the heap at 75 % of memory), with memory as under knative/service.yaml's 512Mi
     * limit: on this 24 GB machine the JVM would otherwise size the heap for 24 GB. With C2, the
     * manager's JIT compiles took a tenth of the 2 cores during a burst.
     */
    static final String LEAN = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:MaxRAM=512m -XX:MaxRAMPercentage=75";

    private Harness() {}

    interface OnRedis {
        void run(String redisUrl, Jedis j) throws Exception;
    }

    interface OnManager {
        void run(ManagerProcess m) throws Exception;
    }

    /** One part of the bench on a redis-server of its own, stopped after it with the agents it left; then the report. */
    static void onOwnRedis(OnRedis part) throws Exception {
        RedisServer redis = RedisServer.ephemeral();
        try (Jedis j = new Jedis(URI.create(redis.url()))) {
            part.run(redis.url(), j);
        } finally {
            LocalAgents.killAll(redis.url());
            redis.stop();
        }
        Report.print();
    }

    /** The packaged manager, ready, for {@code part}, stopped after it. */
    static void withManager(String redisUrl, String[] options, OnManager part) throws Exception {
        ManagerProcess m = manager(redisUrl, "bench-manager", options);
        try {
            part.run(m);
        } finally {
            m.stop();
        }
    }

    static ManagerProcess manager(String redisUrl, String name, String... options) throws Exception {
        return manager(redisUrl, name, Path.of("."), options);
    }

    /**
     * A manager that leaves simulated processors alone: no reconcile pass, none lost or orphaned
     * while measuring, so Redis sees only what the bench sends.
     */
    static ManagerProcess quietManager(String redisUrl, String name, Path dir) throws Exception {
        return manager(
                redisUrl,
                name,
                dir,
                "-Dwarmpool.reconcile.orphan-grace=1h",
                "-Dwarmpool.heartbeat.timeout=1h",
                "-Dwarmpool.reconcile.interval=1h");
    }

    /** The manager as its image runs it ({@link #LEAN}), from {@code dir} (see {@link ManagerProcess#launch}). */
    static ManagerProcess manager(String redisUrl, String name, Path dir, String... options) throws Exception {
        List<String> all = new ArrayList<>(List.of(LEAN.split(" ")));
        all.addAll(List.of(options));
        return launch(javaHere(), redisUrl, name, dir, all);
    }

    /** The packaged manager on the JVM {@code java}, with the bench's state directory, agent jar and token. */
    static ManagerProcess launch(Path java, String redisUrl, String name, Path dir, List<String> options)
            throws Exception {
        List<String> all = new ArrayList<>(List.of(
                // a private dir of its own: what jobs read (trial scripts) lies beside it, in target/bench
                "-Dwarmpool.runtime.local.state-dir="
                        + Path.of("target", "bench", "state").toAbsolutePath(),
                "-Dwarmpool.runtime.local.agent-jar="
                        + Path.of("target", "warmpool-agent.jar").toAbsolutePath(),
                "-Dwarmpool.auth.tokens-file=" + tokensFile()));
        all.addAll(options);
        return ManagerProcess.launch(java, redisUrl, name, dir, TOKEN, all);
    }

    static Path javaHere() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    static Path tokensFile() throws IOException {
        Path f = Path.of("target", "bench", "tokens").toAbsolutePath();
        Files.createDirectories(f.getParent());
        Files.writeString(f, TokenFile.line("bench", "admin", TOKEN) + "\n");
        return f;
    }

    /** A call that must succeed (2xx); its JSON reply. */
    static JsonNode send(ManagerProcess m, String method, String path, String body) throws Exception {
        return send(m, method, path, body, Map.of());
    }

    static JsonNode send(ManagerProcess m, String method, String path, String body, Map<String, String> headers)
            throws Exception {
        HttpResponse<String> r =
                ManagerProcess.HTTP.send(m.request(method, path, body, headers), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() >= 300) {
            throw new IllegalStateException(method + " " + path + ": " + r.statusCode() + " " + r.body());
        }
        return r.body().isEmpty() ? ManagerProcess.JSON.nullNode() : ManagerProcess.JSON.readTree(r.body());
    }

    static JsonNode get(ManagerProcess m, String path) throws Exception {
        return send(m, "GET", path, null);
    }

    /** A pool's processor count in {@code state} (starting, idle, busy, draining) or its queue ("queued"); -1 when unreadable. */
    static int count(ManagerProcess m, String type, String state) {
        try {
            return get(m, "/pools/" + type).path("status").path(state).asInt(-1);
        } catch (Exception e) {
            return -1;
        }
    }

    /** The pool's queued jobs, read in Redis: every tenant's queue (fair share), and one queued before tenants. */
    static long queued(Jedis j, String type) {
        long n = j.zcard(KeySchema.queue(type));
        for (String t : j.smembers(KeySchema.waiting(type))) {
            n += j.zcard(KeySchema.tenantQueue(type, t));
        }
        return n;
    }

    static String id(JsonNode reply) {
        String id = reply.path("id").asText(null);
        if (id == null) {
            throw new IllegalStateException("no id in " + reply);
        }
        return id;
    }

    static double millis(JsonNode job, String field) {
        return Instant.parse(job.path(field).asText()).toEpochMilli();
    }

    static void await(BooleanSupplier condition) {
        await(condition, 20);
    }

    /** Polls (every {@code everyMs}) until the condition holds, at most 10 minutes. */
    static void await(BooleanSupplier condition, long everyMs) {
        Awaitility.await()
                .atMost(Duration.ofMinutes(10))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(everyMs))
                .until(condition::getAsBoolean);
    }

    static long rssKb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (Exception e) {
            return 0;
        }
        return 0;
    }

    /** CPU time of a process (or of its reaped children), in milliseconds, from /proc/PID/stat. */
    static long cpuMs(long pid, boolean children) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // after the name: state is field 3, utime 14, stime 15, cutime 16, cstime 17 (1-based)
            int u = children ? 13 : 11;
            return (Long.parseLong(f[u]) + Long.parseLong(f[u + 1])) * 10; // clock ticks of 10 ms
        } catch (Exception e) {
            return 0;
        }
    }

    /**
     * The CPU of what {@code pid} started: the children it reaped, and every live descendant with
     * the ones each of those reaped (a processor's resident sandbox lives as long as the agent, so
     * its jobs' CPU never reaches the agent's own count of reaped children).
     */
    static long descendantsCpuMs(long pid) {
        long ms = cpuMs(pid, true);
        for (ProcessHandle d :
                ProcessHandle.of(pid).map(h -> h.descendants().toList()).orElse(List.of())) {
            ms += cpuMs(d.pid(), false) + cpuMs(d.pid(), true);
        }
        return ms;
    }

    static String redisUrl(Jedis j) {
        return "redis://127.0.0.1:" + j.configGet("port").get("port");
    }

    static Map<String, Long> commandStats(Jedis j) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (String line : j.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String name = line.substring(8, line.indexOf(':'));
                String calls = line.substring(line.indexOf("calls=") + 6, line.indexOf(',', line.indexOf("calls=")));
                out.put(name, Long.parseLong(calls));
            }
        }
        return out;
    }

    static long usedMemory(Jedis j) {
        for (String line : j.info("memory").split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring(12).trim());
            }
        }
        return -1;
    }
}
