package dev.warmpool.bench;

import static dev.warmpool.bench.Figures.put;
import static dev.warmpool.bench.Harness.*;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.ManagerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A sweep in three modes: a fresh processor per trial (as Katib runs trials), warm processors that start a new process per trial, and persistent workers; the trial is a Python script whose import takes `setup` seconds and whose training takes `work` seconds. */
final class Sweeps {
    private Sweeps() {}

    static void sweeps(ManagerProcess m, int trials, double setup, double work) throws Exception {
        Path script = Path.of("target", "bench", "slow_trial.py").toAbsolutePath();
        Files.createDirectories(script.getParent());
        Files.writeString(
                script,
                "import os, time\nimport warmpool_worker\n"
                        + "time.sleep(float(os.environ['SETUP_SECONDS']))  # the framework import and data loading\n"
                        + "open(os.path.join(os.environ['READY_DIR'], os.environ.get('WARMPOOL_PROCESSOR_ID') or os.environ['WARMPOOL_JOB_ID']), 'w').close()  # imported: the bench waits on these (a sandboxed pid is 2 in each)\n"
                        + "def train(config):\n    time.sleep(float(os.environ['WORK_SECONDS']))\n"
                        + "    return {'loss': (config['x'] - 3) ** 2}\n"
                        + "warmpool_worker.serve(train)\n");
        String env = "{\"PYTHONPATH\": \"" + Path.of("clients", "python").toAbsolutePath() + "\", \"SETUP_SECONDS\": \""
                + setup + "\", \"WORK_SECONDS\": \"" + work + "\", \"READY_DIR\": \"%s\"}";
        String command = "[\"python3\", \"" + script + "\"]";
        StringBuilder grid = new StringBuilder();
        for (int i = 0; i < trials; i++) {
            grid.append(i == 0 ? "" : ", ").append(i);
        }
        String sweep = "{\"type\": \"%s\", \"parallelism\": 4, \"space\": {\"x\": {\"grid\": [" + grid
                + "]}}, \"objective\": {\"metric\": \"loss\"}}";
        put("sweep.trials", trials);
        put("sweep.setupSeconds", setup);
        put("sweep.workSeconds", work);
        Map<String, String> pools = new LinkedHashMap<>();
        pools.put("fresh", "\"minIdle\": 0, \"maxJobsPerProcessor\": 1");
        pools.put("warm", "\"minIdle\": 4");
        pools.put("persistent", "\"minIdle\": 4, \"worker\": \"persistent\"");
        for (Map.Entry<String, String> mode : pools.entrySet()) {
            String type = "b-sweep-" + mode.getKey();
            // the workers mark their imports in the pool's workingDir, the one place besides its own dir
            // a sandboxed job may write; jobs of a root manager run as nobody, hence open to all
            Path ready = Files.createTempDirectory(script.getParent(), type);
            Files.setPosixFilePermissions(ready, PosixFilePermissions.fromString("rwxrwxrwx"));
            send(
                    m,
                    "PUT",
                    "/pools/" + type,
                    "{\"command\": " + command + ", \"env\": " + String.format(env, ready) + ", \"maxSize\": 4, "
                            + "\"workingDir\": \"" + ready + "\", " + mode.getValue() + "}");
            if (!mode.getKey().equals("fresh")) {
                await(() -> count(m, type, "idle") == 4);
            }
            if (mode.getKey().equals("persistent")) {
                // a warm pool's four workers have done their imports
                await(() -> {
                    try (var files = Files.list(ready)) {
                        return files.count() >= 4;
                    } catch (IOException e) {
                        return false;
                    }
                });
            }
            long t0 = System.nanoTime();
            String id = id(send(m, "POST", "/sweeps", String.format(sweep, type)));
            await(() -> !state(m, "/sweeps/" + id).equals("RUNNING"), 50);
            double seconds = (System.nanoTime() - t0) / 1e9;
            JsonNode done = get(m, "/sweeps/" + id);
            if (!done.path("state").asText().equals("SUCCEEDED")
                    || done.path("progress").path("succeeded").asInt() != trials) {
                throw new IllegalStateException(
                        "sweep " + id + " did not succeed: " + done.path("state") + " " + done.path("progress"));
            }
            put("sweep." + mode.getKey() + ".wallSeconds", Math.round(seconds * 100) / 100.0);
            send(m, "DELETE", "/pools/" + type, null);
        }
        double persistent = (double) Figures.ALL.get("sweep.persistent.wallSeconds");
        put(
                "sweep.freshVsPersistent",
                Math.round((double) Figures.ALL.get("sweep.fresh.wallSeconds") / persistent * 10) / 10.0);
        put(
                "sweep.warmVsPersistent",
                Math.round((double) Figures.ALL.get("sweep.warm.wallSeconds") / persistent * 10) / 10.0);
    }

    /**
     * Sweeps the manager runs ({@code "algorithm": "optuna"}): server-side TPE + Hyperband against random
     * search at {@code trials} trials, {@code seeds} seeds, on the quadratic benchmark function and the
     * digits SVC (bench/python/optuna_server.py; the best objective, trial-seconds and trials pruned, medians).
     */
    static void optuna(ManagerProcess m, int trials, int seeds) throws Exception {
        for (String workload : List.of("quadratic", "digits")) {
            Notebook.python(
                    m,
                    "sweep.optuna." + workload,
                    "optuna_server.py",
                    String.valueOf(trials),
                    String.valueOf(seeds),
                    workload);
        }
    }

    static String state(ManagerProcess m, String path) {
        try {
            return get(m, path).path("state").asText();
        } catch (Exception e) {
            return "";
        }
    }
}
