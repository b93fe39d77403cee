package dev.warmpool.bench;

import static dev.warmpool.bench.Figures.p;
import static dev.warmpool.bench.Figures.put;
import static dev.warmpool.bench.Harness.await;
import static dev.warmpool.bench.Harness.send;

import dev.warmpool.ManagerProcess;
import dev.warmpool.protocol.KeySchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import redis.clients.jedis.Jedis;

/**
 * A processor's cold start on the local runtime: pool PUT -> its first processor IDLE, and a
 * replacement after its agent is killed (-9, past the orphan grace) -> the new one IDLE; read from
 * Redis every 2 ms.
 * Also the server's clocks: spawned (startedAt) -> registered.
 */
final class ColdStart {
    private ColdStart() {}

    static void coldStart(ManagerProcess m, Jedis j, int n) throws Exception {
        Path cds = Path.of("target", "bench", "state", "cds");
        await(() -> {
            try (var files = Files.list(cds)) {
                return files.anyMatch(
                        f -> f.toString().endsWith(".jsa") || f.toString().endsWith(".aot"));
            } catch (Exception e) {
                return false;
            }
        });
        List<Double> first = new ArrayList<>();
        List<Double> replaced = new ArrayList<>();
        List<Double> spawnToRegistered = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String type = "b-cold-" + i;
            long t0 = System.nanoTime();
            send(m, "PUT", "/pools/" + type, "{\"command\": [\"true\"], \"minIdle\": 1, \"maxSize\": 1}");
            await(() -> idle(j, type, null).isPresent(), 2);
            first.add((System.nanoTime() - t0) / 1e6);
            String id = idle(j, type, null).orElseThrow();
            ids.add(id);
            List<String> t = j.hmget(KeySchema.processor(type, id), "startedAt", "registeredAt");
            spawnToRegistered.add((double) (Long.parseLong(t.get(1)) - Long.parseLong(t.get(0))));
        }
        // a processor whose process is gone within the orphan grace of its start (10 s: the heartbeat
        // timeout) is not yet taken for lost (its process may not be listed yet): kill older ones
        Thread.sleep(11_000);
        for (int i = 0; i < n; i++) {
            String type = "b-cold-" + i;
            String id = ids.get(i);
            long pid = Long.parseLong(j.hget(KeySchema.processor(type, id), "pid"));
            long t1 = System.nanoTime();
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            await(() -> idle(j, type, id).isPresent(), 2);
            replaced.add((System.nanoTime() - t1) / 1e6);
        }
        for (int i = 0; i < n; i++) {
            send(m, "DELETE", "/pools/b-cold-" + i, null);
        }
        put("coldStart.putToIdle.p50", p(first, 50));
        put("coldStart.putToIdle.max", p(first, 100));
        put("coldStart.killToReplacementIdle.p50", p(replaced, 50));
        put("coldStart.killToReplacementIdle.max", p(replaced, 100));
        put("coldStart.spawnToRegistered.p50", p(spawnToRegistered, 50));
        System.out.printf(
                "cold start of a processor, %d pools (ms): PUT -> IDLE p50 %.0f max %.0f; agent killed -> replacement"
                        + " IDLE p50 %.0f max %.0f; spawned -> registered (server clocks) p50 %.0f%n",
                n, p(first, 50), p(first, 100), p(replaced, 50), p(replaced, 100), p(spawnToRegistered, 50));
    }

    /** An IDLE processor of {@code type} other than {@code not}. */
    private static Optional<String> idle(Jedis j, String type, String not) {
        for (String id : j.smembers(KeySchema.prefix(type) + "procs")) {
            if (!id.equals(not) && "IDLE".equals(j.hget(KeySchema.processor(type, id), "state"))) {
                return Optional.of(id);
            }
        }
        return Optional.empty();
    }
}
