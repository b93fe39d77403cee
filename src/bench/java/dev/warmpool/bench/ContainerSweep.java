package dev.warmpool.bench;

import static dev.warmpool.bench.Figures.put;
import static dev.warmpool.bench.Harness.await;
import static dev.warmpool.bench.Harness.count;
import static dev.warmpool.bench.Harness.get;
import static dev.warmpool.bench.Harness.id;
import static dev.warmpool.bench.Harness.millis;
import static dev.warmpool.bench.Harness.send;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warmpool.ManagerProcess;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A scikit-learn sweep on containers (bench/run --containers): {@code trials} trials of an SVC on
 * the digits data set (C and gamma drawn log-uniformly, fit on 75 %, scored on the rest), at
 * {@code parallelism} trials at once, two ways: what a user does without warmpool, a fresh
 * {@code docker run --rm IMAGE python3 ...} per trial (container, interpreter, the import of
 * scikit-learn and the data, then the fit), and warmpool's sweep on persistent workers in warm
 * containers of the same image (imported once per worker). Same configurations both ways. The
 * image is the debootstrap base with python3-sklearn, made here once (cached by tag).
 */
final class ContainerSweep {
    static final String IMAGE = "warmpool-python-sklearn:bookworm";

    /** The trial: imports first (what a persistent worker pays once), then train(config). */
    static final String TRAIN = String.join(
            "\n",
            "import json, sys",
            "from sklearn.datasets import load_digits",
            "from sklearn.model_selection import train_test_split",
            "from sklearn.svm import SVC",
            "X, y = load_digits(return_X_y=True)",
            "Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0)",
            "def train(config):",
            "    model = SVC(C=config['C'], gamma=config['gamma']).fit(Xtr, ytr)",
            "    return {'loss': 1 - model.score(Xte, yte)}",
            "");
    /** The persistent worker: one JSON job per stdin line, one JSON result per stdout line. */
    static final String WORKER = TRAIN
            + String.join(
                    "\n",
                    "for line in sys.stdin:",
                    "    job = json.loads(line)",
                    "    print(json.dumps({'status': 'SUCCEEDED', 'metrics': train(job['config'])}), flush=True)",
                    "");
    /** A fresh container's one trial: its config as the argument. */
    static final String ONE = TRAIN + "print(json.dumps(train(json.loads(sys.argv[1]))))\n";

    private ContainerSweep() {}

    static void sweep(ManagerProcess m, int trials, int parallelism) throws Exception {
        Containers.run("bash", "src/main/docker/base-image.sh", IMAGE, "python3", "python3-sklearn");
        List<JsonNode> configs = warm(m, trials, parallelism);
        fresh(configs, parallelism);
        double freshWall = Figures.number("containers.sweep.fresh.wallSeconds");
        double warmWall = Figures.number("containers.sweep.persistent.wallSeconds");
        put("containers.sweep.freshVsPersistent", Math.round(freshWall / warmWall * 10) / 10.0);
        System.out.printf(
                "%-46s %14s %18s %8s%n",
                "scikit-learn sweep, " + trials + " trials, " + parallelism + " at once",
                "docker run",
                "persistent worker",
                "ratio");
        double f = Figures.number("containers.sweep.fresh.trialMs.p50");
        double w = Figures.number("containers.sweep.persistent.trialMs.p50");
        System.out.printf("%-46s %14.0f %18.0f %8.1f%n", "one trial, median (ms)", f, w, f / w);
        System.out.printf(
                "%-46s %14.1f %18.1f %8.1f%n", "the sweep, end to end (s)", freshWall, warmWall, freshWall / warmWall);
        System.out.printf(
                "(image %s; docker run: container + python3 + import of scikit-learn and the data + fit, per trial; "
                        + "persistent: the workers imported once before the sweep, a trial is its dispatch and its fit; "
                        + "best loss %.4f both ways)%n%n",
                IMAGE, Figures.number("containers.sweep.persistent.bestLoss"));
    }

    /** The sweep on a pool of {@code parallelism} persistent workers: the configurations its trials ran. */
    static List<JsonNode> warm(ManagerProcess m, int trials, int parallelism) throws Exception {
        ObjectNode pool = ManagerProcess.JSON.createObjectNode();
        pool.putArray("command").add("python3").add("-u").add("-c").add(WORKER);
        pool.put("worker", "persistent").put("minIdle", parallelism).put("maxSize", parallelism);
        pool.putObject("template").put("image", IMAGE);
        send(m, "PUT", "/pools/c-sweep", pool.toString());
        await(() -> count(m, "c-sweep", "idle") == parallelism);
        // every worker has imported: as many jobs at once as there are workers, one each
        List<String> warmUp = new ArrayList<>();
        for (int i = 0; i < parallelism; i++) {
            warmUp.add(id(
                    send(m, "POST", "/jobs", "{\"type\": \"c-sweep\", \"config\": {\"C\": 1.0, \"gamma\": 0.001}}")));
        }
        for (String id : warmUp) {
            get(m, "/jobs/" + id + "?wait=300");
        }
        long t0 = System.nanoTime();
        String id = id(send(
                m,
                "POST",
                "/sweeps",
                "{\"type\": \"c-sweep\", \"algorithm\": \"random\", \"trials\": " + trials + ", \"seed\": 7, "
                        + "\"parallelism\": " + parallelism + ", \"space\": {\"C\": {\"logUniform\": [0.1, 100]}, "
                        + "\"gamma\": {\"logUniform\": [0.0001, 0.01]}}, \"objective\": {\"metric\": \"loss\"}}"));
        await(() -> !Sweeps.state(m, "/sweeps/" + id).equals("RUNNING"), 20);
        double wall = (System.nanoTime() - t0) / 1e9;
        JsonNode done = get(m, "/sweeps/" + id);
        if (!done.path("state").asText().equals("SUCCEEDED")) {
            throw new IllegalStateException("sweep " + id + " did not succeed: " + done);
        }
        List<Double> trialMs = new ArrayList<>();
        List<JsonNode> configs = new ArrayList<>();
        for (JsonNode job : get(m, "/jobs?sweep=" + id + "&limit=1000")) {
            trialMs.add(millis(job, "finishedAt") - millis(job, "startedAt"));
            configs.add(job.path("config"));
        }
        put("containers.sweep.trials", trials);
        put("containers.sweep.parallelism", parallelism);
        put("containers.sweep.persistent.wallSeconds", Math.round(wall * 100) / 100.0);
        put("containers.sweep.persistent.trialMs.p50", Figures.p(trialMs, 50));
        put(
                "containers.sweep.persistent.bestLoss",
                done.path("best").path("value").asDouble());
        send(m, "DELETE", "/pools/c-sweep", null);
        if (configs.size() != trials) {
            throw new IllegalStateException("the sweep listed " + configs.size() + " trials of " + trials);
        }
        return configs;
    }

    /** The same configurations, each in a fresh container, {@code parallelism} at once. */
    static void fresh(List<JsonNode> configs, int parallelism) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(parallelism);
        List<Double> trialMs = Collections.synchronizedList(new ArrayList<>());
        List<Double> losses = Collections.synchronizedList(new ArrayList<>());
        long t0 = System.nanoTime();
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (JsonNode config : configs) {
                runs.add(pool.submit(() -> {
                    long s = System.nanoTime();
                    String out =
                            Containers.run("docker", "run", "--rm", IMAGE, "python3", "-c", ONE, config.toString());
                    trialMs.add((System.nanoTime() - s) / 1e6);
                    losses.add(ManagerProcess.JSON
                            .readTree(out.trim())
                            .path("loss")
                            .asDouble());
                    return null;
                }));
            }
            for (Future<?> f : runs) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        double wall = (System.nanoTime() - t0) / 1e9;
        put("containers.sweep.fresh.wallSeconds", Math.round(wall * 100) / 100.0);
        put("containers.sweep.fresh.trialMs.p50", Figures.p(trialMs, 50));
        put("containers.sweep.fresh.bestLoss", Collections.min(losses));
    }
}
