package dev.warmpool.bench;

import static dev.warmpool.bench.Figures.put;
import static dev.warmpool.bench.Harness.onOwnRedis;
import static dev.warmpool.bench.Harness.rssKb;
import static dev.warmpool.bench.Harness.withManager;

import dev.warmpool.runtime.local.LocalAgents;
import java.nio.file.Path;
import java.util.List;

/**
 * The benchmark suite: warm and cold dispatch, a burst, Redis cost, scale, footprint, in one run,
 * figures side by side. Not a test: it prints (and writes target/bench.json) and never fails on
 * time. It starts its own redis-server (from PATH or the embedded-redis jar) and the packaged
 * manager. Run it with {@code bench/run} (see there for the modes); {@code --quick} is the small
 * version that BenchIT runs in {@code ./mvnw verify}, to prove the benchmark still works.
 */
public final class Bench {
    private Bench() {}

    public static void main(String[] args) throws Exception {
        List<String> a = List.of(args);
        boolean quick = a.contains("--quick");
        if (a.contains("--containers")) {
            Containers.containers(intArg(args, 1, 100), intArg(args, 2, 5), intArg(args, 3, 100));
            Report.print();
        } else if (a.contains("--soak")) {
            Soak.soak(intArg(args, 1, 20_000), intArg(args, 2, 20));
        } else if (a.contains("--spawn-ceiling")) {
            Burst.spawnCeilingHere(Integer.parseInt(args[1]));
        } else if (a.contains("--startup")) {
            onOwnRedis((url, j) -> Startup.startup(url));
        } else if (a.contains("--metrics")) {
            Path other = args.length > 1 ? Path.of(args[1]) : null;
            onOwnRedis((url, j) -> Metrics.metrics(url, j, other));
        } else if (a.contains("--scale")) {
            onOwnRedis((url, j) -> Scale.scale(url, j, new int[] {1, 10, 100}));
        } else if (a.contains("--fair")) {
            // fair share between tenants: a burst from 2 and 10 tenants on vs off, the flood's waits per tenant
            int n = intArg(args, 1, 2000);
            int flood = intArg(args, 2, 400);
            onOwnRedis((url, j) -> withManager(url, Fair.managerOptions(), m -> Fair.fair(m, j, n, flood)));
        } else if (a.contains("--burst")) {
            int n = intArg(args, 1, 2000);
            onOwnRedis((url, j) -> {
                withManager(url, managerOptions(), m -> {
                    Burst.burst(
                            m,
                            j,
                            "warmup",
                            List.of("warmpool:noop"),
                            n); // JIT the paths first, as the full run's earlier parts do
                    Burst.burst(m, j, "true", List.of("true"), n);
                    Burst.burst(m, j, "trueBatch", List.of("true"), n, 100);
                    Burst.burst(m, j, "noop", List.of("warmpool:noop"), n);
                    Footprint.agentFootprint(j, url);
                    put("manager.rssAfterBurstMb", rssKb(m.process.pid()) / 1024);
                });
                // BullMQ's burst on the same Redis, the manager stopped and warmpool's agents gone
                LocalAgents.killAll(url);
                Burst.bullmq(url, n);
                Burst.spawnCeiling(Math.max(50, n / 8));
                // the same burst on warm containers (the docker runtime), with a manager and Redis of its own
                Burst.docker(n);
            });
        } else if (a.contains("--wait")) {
            // the same jobs, waited for on a manager that wakes on end messages and on one that re-reads
            int n = intArg(args, 1, 200);
            onOwnRedis((url, j) -> {
                for (String[] job : new String[][] {{"", "[\"true\"]"}, {"sleep50ms.", "[\"sleep\", \"0.05\"]"}}) {
                    withManager(url, new String[0], m -> Dispatch.waits(m, job[0] + "endMessage", n, job[1]));
                    withManager(
                            url,
                            new String[] {"-Dwarmpool.jobs.wake-on-end=false"},
                            m -> Dispatch.waits(m, job[0] + "polling", n, job[1]));
                }
            });
        } else if (a.contains("--isolation")) {
            // what a job's room costs: the same jobs with and without the sandbox, each twice, alternated
            int n = intArg(args, 1, 200);
            onOwnRedis((url, j) -> {
                for (String round : List.of("1", "2")) {
                    for (String sandbox : List.of("none", "bwrap")) {
                        withManager(url, new String[] {"-Dwarmpool.runtime.local.sandbox=" + sandbox}, m -> {
                            Dispatch.waits(m, "sandbox-" + sandbox + "." + round, n, "[\"true\"]");
                            Burst.burst(m, j, "sandbox-" + sandbox + "-" + round, List.of("true"), 4 * n);
                        });
                    }
                }
            });
        } else if (a.contains("--coldstart")) {
            onOwnRedis((url, j) ->
                    withManager(url, managerOptions(), m -> ColdStart.coldStart(m, j, intArg(args, 1, 10))));
        } else if (a.contains("--notebook")) {
            onOwnRedis((url, j) -> Notebook.notebook(url, j, intArg(args, 1, 200)));
        } else if (a.contains("--sweeps")) {
            onOwnRedis((url, j) -> withManager(url, new String[0], m -> {
                Sweeps.sweeps(
                        m,
                        intArg(args, 1, 32),
                        args.length > 2 ? Double.parseDouble(args[2]) : 2,
                        args.length > 3 ? Double.parseDouble(args[3]) : 0.2);
                Sweeps.optuna(m, intArg(args, 4, 40), intArg(args, 5, 3));
            }));
        } else {
            all(quick);
        }
    }

    private static void all(boolean quick) throws Exception {
        onOwnRedis((url, j) -> {
            withManager(url, new String[0], m -> {
                put("manager.readyMs", m.readyMs);
                put("manager.rssStartMb", rssKb(m.process.pid()) / 1024);
                Dispatch.warm(m, quick ? 50 : 200);
                Dispatch.cold(m, quick ? 3 : 10);
                Burst.burst(m, j, "true", List.of("true"), quick ? 200 : 2000);
                Burst.burst(m, j, "trueBatch", List.of("true"), quick ? 200 : 2000, 100);
                Burst.burst(m, j, "noop", List.of("warmpool:noop"), quick ? 200 : 2000);
                Burst.spawnCeiling(quick ? 50 : 300);
                Footprint.memoryPerProcessor(m, j, quick ? 100 : 1000);
                Footprint.agentFootprint(j, url);
                Footprint.agentStart(m, j);
                put("manager.rssAfterBurstMb", rssKb(m.process.pid()) / 1024);
                Sweeps.sweeps(m, quick ? 4 : 32, quick ? 0.2 : 2, quick ? 0.05 : 0.2);
                Dispatch.gang(m, quick ? 10 : 50);
            });
            Scale.scale(url, j, quick ? new int[] {1, 2} : new int[] {1, 10, 100});
            Footprint.cds(url);
            if (!quick) {
                Startup.startup(url);
            }
        });
    }

    private static int intArg(String[] args, int i, int otherwise) {
        return args.length > i ? Integer.parseInt(args[i]) : otherwise;
    }

    /** BENCH_MANAGER_OPTS: extra manager JVM options, e.g. a flight recording of it, or the agents' JVM options. */
    static String[] managerOptions() {
        String extra = System.getenv().getOrDefault("BENCH_MANAGER_OPTS", "").trim();
        return extra.isEmpty() ? new String[0] : extra.split("\\s+");
    }
}
