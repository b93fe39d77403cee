package dev.warmpool.bench;

import static dev.warmpool.bench.Figures.put;
import static dev.warmpool.bench.Harness.await;
import static dev.warmpool.bench.Harness.count;
import static dev.warmpool.bench.Harness.get;
import static dev.warmpool.bench.Harness.id;
import static dev.warmpool.bench.Harness.send;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warmpool.ManagerProcess;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
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
    /**
     * How often the client asks whether the sweep has ended: as the Python client's {@code Sweep.wait()}
     * does. It used to be every 20 ms, and each GET reads all 100 trials: the manager and the bench
     * then took a quarter of this 2-core machine from the fits (2026-12-06, 8.2 s against 6.0 s for the
     * same sweep). The sweep's end is the server's {@code finishedAt}, so the interval adds nothing to it.
     */
    static final long POLL_MS = 500;

    /**
     * The trial: imports first (what a persistent worker pays once), then train(config), which also
     * says how long its fit and score took (fitMs), so that a trial's time splits into the work and
     * what surrounds it (container, interpreter, imports; or warmpool's dispatch and result).
     */
    static final String TRAIN = String.join(
            "\n",
            "import json, sys, time",
            "from sklearn.datasets import load_digits",
            "from sklearn.model_selection import train_test_split",
            "from sklearn.svm import SVC",
            "X, y = load_digits(return_X_y=True)",
            "Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0)",
            "def train(config):",
            "    t = time.perf_counter()",
            "    model = SVC(C=config['C'], gamma=config['gamma']).fit(Xtr, ytr)",
            "    loss = 1 - model.score(Xte, yte)",
            "    return {'loss': loss, 'fitMs': (time.perf_counter() - t) * 1000}",
            "");
    /**
     * The persistent worker: one JSON job per stdin line, one JSON result per stdout line, written
     * in one call as warmpool.worker does ({@code print(..., flush=True)} under {@code python3 -u}
     * writes the line and its newline apart: the agent's reader woke twice per trial, and the second
     * write came up to 2.5 ms after the first on the busy 2 cores).
     */
    static final String WORKER = TRAIN
            + String.join(
                    "\n",
                    "for line in sys.stdin:",
                    "    job = json.loads(line)",
                    "    sys.stdout.write(json.dumps({'status': 'SUCCEEDED', 'metrics': train(job['config'])}) + '\\n')",
                    "    sys.stdout.flush()",
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
        row("one trial, mean (ms)", "trialMs.mean");
        row("its fit and score, mean (ms)", "fitMs.mean");
        System.out.printf(
                "%-46s %14.1f %18.1f %8.1f%n", "the sweep, end to end (s)", freshWall, warmWall, freshWall / warmWall);
        System.out.printf(
                "(image %s; docker run: container + python3 + import of scikit-learn and the data + fit, per trial; "
                        + "persistent: the workers imported once before the sweep, a trial is its dispatch and its fit; "
                        + "end to end: from the first start or the POST to the last trial's end; best loss %.4f both ways)%n%n",
                IMAGE, Figures.number("containers.sweep.persistent.bestLoss"));
    }

    private static void row(String name, String figure) {
        double f = Figures.number("containers.sweep.fresh." + figure);
        double w = Figures.number("containers.sweep.persistent." + figure);
        System.out.printf("%-46s %14.1f %18.1f %8.1f%n", name, f, w, f / w);
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
        Map<String, Long> cpu0 = CpuByRole.sample(ContainerSweep::role);
        long busy0 = CpuByRole.machineBusyMs();
        long t0 = System.nanoTime();
        long t0Ms = System.currentTimeMillis();
        String id = id(send(
                m,
                "POST",
                "/sweeps",
                "{\"type\": \"c-sweep\", \"algorithm\": \"random\", \"trials\": " + trials + ", \"seed\": 7, "
                        + "\"parallelism\": " + parallelism + ", \"space\": {\"C\": {\"logUniform\": [0.1, 100]}, "
                        + "\"gamma\": {\"logUniform\": [0.0001, 0.01]}}, \"objective\": {\"metric\": \"loss\"}}"));
        await(() -> !Sweeps.state(m, "/sweeps/" + id).equals("RUNNING"), POLL_MS);
        double wall = (System.nanoTime() - t0) / 1e9;
        long busy = CpuByRole.machineBusyMs() - busy0;
        Map<String, Long> cpu = CpuByRole.since(cpu0, CpuByRole.sample(ContainerSweep::role));
        JsonNode done = get(m, "/sweeps/" + id);
        if (!done.path("state").asText().equals("SUCCEEDED")) {
            throw new IllegalStateException("sweep " + id + " did not succeed: " + done);
        }
        List<JsonNode> jobs = new ArrayList<>();
        get(m, "/jobs?sweep=" + id + "&limit=1000").forEach(jobs::add);
        List<JsonNode> configs = new ArrayList<>();
        for (JsonNode job : jobs) {
            configs.add(job.path("config"));
        }
        put("containers.sweep.trials", trials);
        put("containers.sweep.parallelism", parallelism);
        // end to end: the POST to the sweep's end as the server recorded it (the same machine's clock), so
        // that the client's polling interval is left out; what the polling client saw is beside it
        double ended = Instant.parse(done.path("finishedAt").asText()).toEpochMilli();
        put("containers.sweep.persistent.wallSeconds", Math.round(ended - t0Ms) / 1000.0);
        put("containers.sweep.persistent.clientSeconds", Math.round(wall * 100) / 100.0);
        put(
                "containers.sweep.persistent.bestLoss",
                done.path("best").path("value").asDouble());
        put("containers.sweep.persistent.cpuMs", cpu);
        put("containers.sweep.persistent.machineBusyMs", busy);
        SweepTimeline.persistent(done, jobs);
        send(m, "DELETE", "/pools/c-sweep", null);
        if (configs.size() != trials) {
            throw new IllegalStateException("the sweep listed " + configs.size() + " trials of " + trials);
        }
        return configs;
    }

    /** Whose CPU a process's time is, by its command line, during the persistent sweep. */
    static String role(String cmd) {
        if (cmd.contains("load_digits")) {
            return "worker";
        }
        if (cmd.contains("quarkus-run.jar")) {
            return "manager"; // before the agent: its options name the agent's bundle
        }
        if (cmd.contains("lib/warmpool-agent.jar") || cmd.contains("dev.warmpool.agent")) {
            return "agent";
        }
        if (cmd.contains("redis-server")) {
            return "redis";
        }
        if (cmd.startsWith("dockerd") || cmd.contains("containerd")) {
            return "docker";
        }
        if (cmd.contains("dev.warmpool.bench.Bench")) {
            return "bench";
        }
        return "other";
    }

    /** The same configurations, each in a fresh container, {@code parallelism} at once. */
    static void fresh(List<JsonNode> configs, int parallelism) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(parallelism);
        List<Double> trialMs = Collections.synchronizedList(new ArrayList<>());
        List<Double> losses = Collections.synchronizedList(new ArrayList<>());
        List<Double> fitMs = Collections.synchronizedList(new ArrayList<>());
        long t0 = System.nanoTime();
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (JsonNode config : configs) {
                runs.add(pool.submit(() -> {
                    long s = System.nanoTime();
                    String out =
                            Containers.run("docker", "run", "--rm", IMAGE, "python3", "-c", ONE, config.toString());
                    trialMs.add((System.nanoTime() - s) / 1e6);
                    JsonNode result = ManagerProcess.JSON.readTree(out.trim());
                    losses.add(result.path("loss").asDouble());
                    fitMs.add(result.path("fitMs").asDouble());
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
        SweepTimeline.fresh(trialMs, fitMs, parallelism);
    }
}
