package dev.warmpool.bench;

import static dev.warmpool.bench.Figures.p;
import static dev.warmpool.bench.Figures.put;
import static dev.warmpool.bench.Harness.*;

import dev.warmpool.ManagerProcess;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.protocol.script.RegisterReply;
import dev.warmpool.protocol.script.Script;
import dev.warmpool.runtime.local.LocalAgents;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

/** What a processor costs: Redis bytes per idle processor, agent RSS, agent start to registered; the manager on a class-data archive. */
final class Footprint {
    private Footprint() {}

    static void memoryPerProcessor(ManagerProcess m, Jedis j, int n) throws Exception {
        send(m, "PUT", "/pools/b-mem", "{\"command\": [\"true\"], \"minIdle\": 0, \"maxSize\": " + (n + 10) + "}");
        long before = usedMemory(j);
        register(j, "b-mem", n);
        put("redis.bytesPerIdleProcessor", (usedMemory(j) - before) / n);
        send(m, "DELETE", "/pools/b-mem", null);
    }

    /** Spawn to registered of one agent at a time, 5 times, on a quiet machine (from the class-data archive, once it exists). */
    static void agentStart(ManagerProcess m, Jedis j) throws Exception {
        Path cds = Path.of("target", "bench", "state", "cds");
        await(() -> {
            try (var files = Files.list(cds)) {
                return files.anyMatch(
                        f -> f.toString().endsWith(".jsa") || f.toString().endsWith(".aot"));
            } catch (Exception e) {
                return false;
            }
        });
        List<Double> starts = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String type = "b-agent-" + i;
            send(m, "PUT", "/pools/" + type, "{\"command\": [\"true\"], \"minIdle\": 1, \"maxSize\": 1}");
            await(() -> count(m, type, "idle") == 1);
            for (String id : j.smembers(KeySchema.prefix(type) + "procs")) {
                List<String> t = j.hmget(KeySchema.processor(type, id), "startedAt", "registeredAt");
                starts.add((double) (Long.parseLong(t.get(1)) - Long.parseLong(t.get(0))));
            }
            send(m, "DELETE", "/pools/" + type, null);
        }
        put("agent.archivedStartToRegistered.p50", p(starts, 50));
        put("agent.archivedStartToRegistered.max", p(starts, 100));
    }

    /** Fake idle processors, registered with the agent's own script (no process behind them). */
    /** Pools {@code prefix + from} to {@code prefix + (to - 1)}, each with {@code n} simulated processors. */
    static void simulatedPools(ManagerProcess m, Jedis j, String prefix, int from, int to, int n) throws Exception {
        for (int i = from; i < to; i++) {
            Harness.send(
                    m, "PUT", "/pools/" + prefix + i, "{\"command\": [\"true\"], \"minIdle\": 0, \"maxSize\": 200}");
            register(j, prefix + i, n);
        }
    }

    static void register(Jedis j, String type, int n) {
        Pipeline p = j.pipelined();
        for (int i = 0; i < n; i++) {
            List<String> argv = new ArrayList<>(List.of(KeySchema.prefix(type)));
            argv.addAll(RegisterReply.args("sim" + i, 0, "sim", ""));
            p.eval(Script.REGISTER.source(), List.of(KeySchema.pool(type)), argv);
        }
        p.sync();
    }

    static void agentFootprint(Jedis j, String redisUrl) {
        List<Long> pids = LocalAgents.agentPids(redisUrl);
        put("agent.rssMb", pids.stream().mapToLong(Harness::rssKb).max().orElse(0) / 1024);
        put("agent.rssMb.p50", p(pids.stream().map(pid -> rssKb(pid) / 1024.0).toList(), 50));
        List<Double> starts = new ArrayList<>();
        for (String type : j.smembers(KeySchema.POOLS)) {
            for (String id : j.smembers(KeySchema.prefix(type) + "procs")) {
                List<String> t = j.hmget(KeySchema.processor(type, id), "startedAt", "registeredAt");
                if (t.get(0) != null && t.get(1) != null && !id.startsWith("sim")) {
                    starts.add((double) (Long.parseLong(t.get(1)) - Long.parseLong(t.get(0))));
                }
            }
        }
        put("agent.startToRegistered.p50", p(starts, 50));
    }

    static void cds(String redisUrl) throws Exception {
        Path jsa = Path.of("target", "quarkus-app", "app-cds.jsa");
        if (!Files.exists(jsa)) {
            put("manager.appcds", "not built (package with -Dquarkus.package.jar.appcds.enabled=true)");
            return;
        }
        // the archive records the class path as the build ran it: start from target/quarkus-app, as it did
        ManagerProcess m = manager(redisUrl, "bench-cds", jsa.getParent(), "-XX:SharedArchiveFile=app-cds.jsa");
        put("manager.appcds.readyMs", m.readyMs);
        put("manager.appcds.rssStartMb", rssKb(m.process.pid()) / 1024);
        m.stop();
    }
}
