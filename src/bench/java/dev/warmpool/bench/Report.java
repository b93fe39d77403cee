package dev.warmpool.bench;

import com.fasterxml.jackson.databind.SerializationFeature;
import dev.warmpool.ManagerProcess;
import java.nio.file.Path;
import java.util.List;

/** The run's figures as tables side by side, and all of them in target/bench.json. */
final class Report {
    private Report() {}

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
            System.out.printf("%-34s %10s %10s %10s%n", "burst on 4 processors", "true", "true, x100", "no-op");
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
                System.out.printf(
                        "%-34s %10.1f %10.1f %10.1f%n",
                        f,
                        ((Number) Figures.ALL.get("burst.true." + f)).doubleValue(),
                        ((Number) Figures.ALL.get("burst.trueBatch." + f)).doubleValue(),
                        ((Number) Figures.ALL.get("burst.noop." + f)).doubleValue());
            }
            System.out.println("(x100: the same jobs in batches of 100, POST /jobs/batch)");
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
