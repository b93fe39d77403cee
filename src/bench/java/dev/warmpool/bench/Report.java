package dev.warmpool.bench;

import com.fasterxml.jackson.databind.SerializationFeature;
import dev.warmpool.ManagerProcess;
import java.nio.file.Path;
import java.util.List;

/** The run's figures as tables side by side, and all of them in target/bench.json. */
final class Report {
    private Report() {}

    /** Server-side TPE + Hyperband beside random search on one workload (bench/python/optuna_server.py), medians. */
    private static void optuna(String workload) {
        String p = "sweep.optuna." + workload + ".";
        if (!Figures.ALL.containsKey(p + "random.busySeconds")) {
            return;
        }
        System.out.printf(
                "server-side Optuna on %s, %s trials, %s seeds, medians (best: %s):%n",
                workload,
                Figures.ALL.get(p + "trials"),
                Figures.ALL.get(p + "seeds"),
                Figures.ALL.getOrDefault(p + "goal", "minimize"));
        System.out.printf("%-34s %14s %14s%n", "", "tpe+hyperband", "random");
        for (String f : List.of("best", "busySeconds", "idleSeconds", "pruned", "wallSeconds")) {
            System.out.printf(
                    "%-34s %14.4g %14.4g%n",
                    f.equals("busySeconds") ? "trial-seconds" : f.equals("idleSeconds") ? "idle seconds held" : f,
                    Figures.number(p + "tpe+hyperband." + f),
                    Figures.number(p + "random." + f));
        }
        System.out.printf(
                "%-34s %14s %14s%n%n",
                "best by seed",
                Figures.ALL.get(p + "tpe+hyperband.bestBySeed"),
                Figures.ALL.get(p + "random.bestBySeed"));
    }

    static void print() throws Exception {
        ManagerProcess.JSON
                .writer()
                .with(SerializationFeature.INDENT_OUTPUT)
                .writeValue(Path.of("target", "bench.json").toFile(), Figures.ALL);
        if (Figures.ALL.containsKey("sweep.persistent.wallSeconds")) {
            System.out.printf(
                    "sweep of %s trials (%s s setup, %s s work), parallelism 4:%n",
                    Figures.ALL.get("sweep.trials"),
                    Figures.ALL.get("sweep.setupSeconds"),
                    Figures.ALL.get("sweep.workSeconds"));
            System.out.printf("%-34s %10s %10s %10s%n", "", "fresh", "warm", "persistent");
            System.out.printf(
                    "%-34s %10.2f %10.2f %10.2f%n",
                    "wall seconds",
                    Figures.ALL.get("sweep.fresh.wallSeconds"),
                    Figures.ALL.get("sweep.warm.wallSeconds"),
                    Figures.ALL.get("sweep.persistent.wallSeconds"));
            System.out.printf(
                    "%-34s %10.1f %10.1f %10.1f%n%n",
                    "x persistent",
                    Figures.ALL.get("sweep.freshVsPersistent"),
                    Figures.ALL.get("sweep.warmVsPersistent"),
                    1.0);
        }
        for (String workload : List.of("quadratic", "digits")) {
            optuna(workload);
        }
        if (Figures.ALL.keySet().stream().anyMatch(k -> k.startsWith("startup."))) {
            System.out.printf("%-34s %10s %10s%n", "manager launch -> ready (median of 3)", "ready ms", "RSS MB");
            Figures.ALL.forEach((k, v) -> {
                if (k.startsWith("startup.") && k.endsWith(".readyMs")) {
                    String way = k.substring("startup.".length(), k.length() - ".readyMs".length());
                    System.out.printf(
                            "%-34s %10.0f %10.0f%n",
                            way, (double) v, (double) Figures.ALL.get("startup." + way + ".rssMb"));
                }
            });
            System.out.printf("(lean: %s)%n%n", Harness.LEAN);
        }
        for (String job : List.of("", "sleep50ms.")) {
            if (!Figures.ALL.containsKey("wait." + job + "polling.postWait.p50")) {
                continue;
            }
            System.out.printf(
                    "%-34s %10s %10s %10s%n",
                    "warm " + (job.isEmpty() ? "`true`" : "`sleep 0.05`") + ", client ms",
                    "end msg",
                    "re-read",
                    "ratio");
            for (String f : List.of(
                    "postThenGet.p50",
                    "postThenGet.p99",
                    "postWait.p50",
                    "postWait.p99",
                    "serverSubmitToFinished.p50")) {
                double e = Figures.number("wait." + job + "endMessage." + f),
                        r = Figures.number("wait." + job + "polling." + f);
                System.out.printf("%-34s %10.1f %10.1f %10.2f%n", f, e, r, e / r);
            }
            System.out.println("(postThenGet: POST /jobs, then GET /jobs/{id}?wait=; postWait: POST /jobs?wait=)\n");
        }
        if (Figures.ALL.containsKey("warm.submitToRunning.p50")) {
            System.out.printf("%-34s %10s %10s %10s%n", "submit -> (ms)", "warm", "cold", "cold/warm");
            for (String f : List.of(
                    "submitToRunning.p50",
                    "submitToRunning.p99",
                    "submitToFinished.p50",
                    "submitToFinished.p99",
                    "clientSubmitToFinished.p50",
                    "clientSubmitToFinished.p99")) {
                double w = (double) Figures.ALL.get("warm." + f), c = (double) Figures.ALL.get("cold." + f);
                System.out.printf("%-34s %10.1f %10.1f %10.0f%n", f, w, c, c / Math.max(w, 0.5));
            }
            System.out.println();
        }
        if (Figures.ALL.containsKey("burst.noop.jobs")) {
            // BullMQ's column (--burst only): its workers stand where warmpool's agents do, and it has no manager
            boolean bullmq = Figures.ALL.containsKey("burst.bullmq.jobs");
            System.out.printf(
                    "%-34s %10s %10s %10s%s%n",
                    "burst on 4 processors",
                    "true",
                    "true, x100",
                    "no-op",
                    bullmq ? String.format(" %10s", "bullmq") : "");
            for (String f : List.of(
                    "jobs",
                    "jobsPerSecond",
                    "queueWait.p50",
                    "queueWait.p99",
                    "cpuMsPerJob.manager",
                    "cpuMsPerJob.agents",
                    "cpuMsPerJob.jobProcesses",
                    "cpuMsPerJob.redis",
                    "cpuMsPerJob.client")) {
                String b = "";
                if (bullmq) {
                    Object v = Figures.ALL.get("burst.bullmq." + f.replace("agents", "workers"));
                    b = v == null ? String.format(" %10s", "-") : String.format(" %10.1f", ((Number) v).doubleValue());
                }
                System.out.printf(
                        "%-34s %10.1f %10.1f %10.1f%s%n",
                        bullmq && f.equals("cpuMsPerJob.agents") ? "cpuMsPerJob.agents/bullmq workers" : f,
                        ((Number) Figures.ALL.get("burst.true." + f)).doubleValue(),
                        ((Number) Figures.ALL.get("burst.trueBatch." + f)).doubleValue(),
                        ((Number) Figures.ALL.get("burst.noop." + f)).doubleValue(),
                        b);
            }
            System.out.println("(x100: the same jobs in batches of 100, POST /jobs/batch)");
            if (bullmq) {
                System.out.printf(
                        "(bullmq: %.0f processes of 1 worker each, jobs added with addBulk in chunks of 100, %.0f"
                                + " warm-up jobs first; Redis commands per job: bullmq %.1f, warmpool `true` %s)%n",
                        Figures.number("burst.bullmq.workers"),
                        Figures.number("burst.bullmq.warmupJobs"),
                        Figures.number("burst.bullmq.redis.commandsPerJob"),
                        Figures.ALL.containsKey("redis.commandsPerJob")
                                ? String.format("%.1f", Figures.number("redis.commandsPerJob"))
                                : "-");
                System.out.printf(
                        "%-44s %.2f (goal >= 1.5, stretch 2)%n",
                        "warmpool `true` / BullMQ jobs/s", Figures.number("burst.trueOverBullmq"));
                System.out.printf(
                        "%-44s %.2f%n",
                        "warmpool `true`, x100 / BullMQ jobs/s", Figures.number("burst.trueBatchOverBullmq"));
            }
            if (Figures.ALL.containsKey("burst.docker.jobsPerSecond")) {
                System.out.printf(
                        "%-44s %.0f jobs/s (%.2f of the local runtime's, %.2f of BullMQ's); queue wait p50 %.0f ms;"
                                + " CPU ms a job: agents %.1f, containers' other processes %.1f, manager %.1f, Redis %.1f%n",
                        "burst of `true` on 4 warm containers (docker)",
                        Figures.number("burst.docker.jobsPerSecond"),
                        Figures.number("burst.dockerOverLocal"),
                        Figures.ALL.containsKey("burst.bullmq.jobsPerSecond")
                                ? Figures.number("burst.docker.jobsPerSecond")
                                        / Figures.number("burst.bullmq.jobsPerSecond")
                                : Double.NaN,
                        Figures.number("burst.docker.queueWait.p50"),
                        Figures.number("burst.docker.cpuMsPerJob.agents"),
                        Figures.number("burst.docker.cpuMsPerJob.jobProcesses"),
                        Figures.number("burst.docker.cpuMsPerJob.manager"),
                        Figures.number("burst.docker.cpuMsPerJob.redis"));
            }
            for (String note : List.of("burst.bullmq.skipped", "burst.bullmq.failed", "burst.docker.skipped")) {
                if (Figures.ALL.containsKey(note)) {
                    System.out.printf("%-44s %s%n", note, Figures.ALL.get(note));
                }
            }
            if (Figures.ALL.containsKey("spawnCeiling.4spawners.perSecond")) {
                System.out.printf(
                        "%-34s %10s %10s %10s%n",
                        "`true` spawned/s, no warmpool", "1 thread", "2 threads", "4 threads");
                System.out.printf(
                        "%-34s %10.0f %10.0f %10.0f%n",
                        "(the machine's ceiling)",
                        Figures.ALL.get("spawnCeiling.1spawners.perSecond"),
                        Figures.ALL.get("spawnCeiling.2spawners.perSecond"),
                        Figures.ALL.get("spawnCeiling.4spawners.perSecond"));
                if (Figures.ALL.containsKey("spawnCeiling.4sandboxed.perSecond")) {
                    System.out.printf(
                            "%-34s %10.0f %10s %10.0f%n",
                            "(each in a processor's sandbox)",
                            Figures.ALL.get("spawnCeiling.1sandboxed.perSecond"),
                            "-",
                            Figures.ALL.get("spawnCeiling.4sandboxed.perSecond"));
                    double t = Figures.number("burst.true.jobsPerSecond");
                    System.out.printf(
                            "%-44s %.2f of the bare ceiling (goal >= 0.5), %.2f of the sandboxed%n",
                            "warmpool `true` (4 threads' ceilings)",
                            t / Figures.number("spawnCeiling.4spawners.perSecond"),
                            t / Figures.number("spawnCeiling.4sandboxed.perSecond"));
                }
            }
            System.out.println();
        }
        Figures.ALL.forEach((k, v) -> {
            if (!k.startsWith("warm.")
                    && !k.startsWith("wait.")
                    && !k.startsWith("cold.")
                    && !k.startsWith("burst.")
                    && !k.startsWith("sweep.")
                    && !(k.startsWith("startup.") && (k.endsWith("readyMs") || k.endsWith("rssMb")))
                    && !k.equals("redis.commandstats")) {
                System.out.printf("%-44s %s%n", k, v instanceof Double d ? String.format("%.2f", d) : v);
            }
        });
        if (Figures.ALL.containsKey("redis.commandstats")) {
            System.out.println("redis.commandstats (burst of true)          " + Figures.ALL.get("redis.commandstats"));
        }
        System.out.println("(all figures also in target/bench.json)");
    }
}
