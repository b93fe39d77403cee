package dev.warmpool.bench;

import static dev.warmpool.bench.Figures.put;
import static dev.warmpool.bench.Harness.await;
import static dev.warmpool.bench.Harness.count;
import static dev.warmpool.bench.Harness.get;
import static dev.warmpool.bench.Harness.id;
import static dev.warmpool.bench.Harness.millis;
import static dev.warmpool.bench.Harness.send;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.ManagerProcess;
import dev.warmpool.runtime.docker.DockerEngine;
import dev.warmpool.store.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What the product is for, on real containers (bench/run --containers): what a user does without
 * warmpool, {@code docker run --rm IMAGE cmd} per job, against a job on warmpool's warm container
 * of the same image; and the cold start of one processor (container and agent ready). Submit ->
 * running: for docker run, from the call to the first instruction of the job (it prints the
 * host's clock, which a container shares); for warmpool, by the server's clocks (ms).
 */
final class Containers {
    static final String IMAGE = "warmpool-base:bookworm";

    private Containers() {}

    static void containers(int n, int cold, int trials) throws Exception {
        run("bash", "src/main/docker/base-image.sh", IMAGE);
        String password = "bench-" + Long.toHexString(System.nanoTime());
        String gateway = DockerEngine.gateway(
                DockerEngine.client(System.getenv().getOrDefault("DOCKER_HOST", "unix:///var/run/docker.sock")),
                "bridge");
        RedisServer redis = RedisServer.ephemeral("--requirepass", password, "--bind", "127.0.0.1", gateway);
        String instance = "127.0.0.1:" + redis.port();
        try {
            fresh(n);
            ManagerProcess m = Harness.manager(
                    "redis://:" + password + "@" + instance, "bench-containers", "-Dwarmpool.runtime.type=docker");
            try {
                warm(m, n);
                cold(m, cold);
                if (trials > 0) {
                    ContainerSweep.sweep(m, trials, 2);
                }
            } finally {
                m.stop();
            }
        } finally {
            removeAll(instance);
            redis.stop();
        }
        double fresh = Figures.number("containers.dockerRun.submitToRunning.p50");
        double warm = Figures.number("containers.warm.submitToRunning.p50");
        put("containers.dockerRunVsWarm.p50", fresh / Math.max(warm, 0.5));
        System.out.printf(
                "%-34s %12s %12s %12s%n", "submit -> running (ms), " + n + " jobs", "docker run", "warm", "ratio");
        for (String p : List.of("p50", "p99")) {
            double f = Figures.number("containers.dockerRun.submitToRunning." + p);
            double w = Figures.number("containers.warm.submitToRunning." + p);
            System.out.printf("%-34s %12.1f %12.1f %12.0f%n", p, f, w, f / Math.max(w, 0.5));
        }
        System.out.printf(
                "%-34s %12.1f %12.1f%n",
                "submit -> finished p50",
                Figures.number("containers.dockerRun.submitToFinished.p50"),
                Figures.number("containers.warm.submitToFinished.p50"));
        System.out.printf(
                "(warm: server clocks, whole ms, so 0.5 ms stands for a 0 in the ratio; image %s; cold start of one "
                        + "processor, container + agent ready + job running: p50 %.0f ms, of which Docker's create %.0f ms and "
                        + "start %.0f ms)%n%n",
                IMAGE,
                Figures.number("containers.coldProcessor.submitToRunning.p50"),
                Figures.number("containers.coldParts.apiCreate.p50"),
                Figures.number("containers.coldParts.apiStart.p50"));
    }

    /** {@code docker run --rm IMAGE sh -c 'date +%s%N'}: what a job without warmpool waits for. */
    static void fresh(int n) throws Exception {
        List<Double> running = new ArrayList<>(), finished = new ArrayList<>();
        run("docker", "run", "--rm", IMAGE, "true"); // the first run of an image pays for its layers once
        for (int i = 0; i < n; i++) {
            Instant t0 = Instant.now();
            String out = run("docker", "run", "--rm", IMAGE, "sh", "-c", "date +%s%N")
                    .trim();
            double end = Instant.now().toEpochMilli() - t0.toEpochMilli();
            double start = Long.parseLong(out) / 1e6 - (t0.getEpochSecond() * 1e3 + t0.getNano() / 1e6);
            running.add(start);
            finished.add(end);
        }
        put("containers.dockerRun.jobs", n);
        put("containers.dockerRun.submitToRunning.p50", Figures.p(running, 50));
        put("containers.dockerRun.submitToRunning.p99", Figures.p(running, 99));
        put("containers.dockerRun.submitToFinished.p50", Figures.p(finished, 50));
    }

    /** The same job on the warm container of a pool of the same image, one after another. */
    static void warm(ManagerProcess m, int n) throws Exception {
        send(
                m,
                "PUT",
                "/pools/c-warm",
                "{\"command\": [\"true\"], \"minIdle\": 1, \"maxSize\": 1, " + "\"template\": {\"image\": \"" + IMAGE
                        + "\"}}");
        await(() -> count(m, "c-warm", "idle") == 1);
        List<List<Double>> t = Dispatch.oneAfterAnother(m, "c-warm", n, () -> count(m, "c-warm", "idle") == 1);
        put("containers.warm.jobs", n);
        put("containers.warm.submitToRunning.p50", Figures.p(t.get(0), 50));
        put("containers.warm.submitToRunning.p99", Figures.p(t.get(0), 99));
        put("containers.warm.submitToFinished.p50", Figures.p(t.get(1), 50));
        put("containers.warm.clientSubmitToFinished.p50", Figures.p(t.get(2), 50));
        send(m, "DELETE", "/pools/c-warm", null);
    }

    /** A job on a pool with no processor: a container is created and started, its agent starts and takes the job. */
    static void cold(ManagerProcess m, int n) throws Exception {
        List<Double> running = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String type = "c-cold-" + i;
            send(
                    m,
                    "PUT",
                    "/pools/" + type,
                    "{\"command\": [\"true\"], \"minIdle\": 0, \"maxSize\": 1, " + "\"template\": {\"image\": \""
                            + IMAGE + "\"}}");
            JsonNode job = get(m, "/jobs/" + id(send(m, "POST", "/jobs", "{\"type\": \"" + type + "\"}")) + "?wait=60");
            running.add(millis(job, "startedAt") - millis(job, "submittedAt"));
            send(m, "DELETE", "/pools/" + type, null);
        }
        parts(n);
        put("containers.coldProcessor.jobs", n);
        put("containers.coldProcessor.submitToRunning.p50", Figures.p(running, 50));
        put("containers.coldProcessor.submitToRunning.p99", Figures.p(running, 99));
    }

    /**
     * The parts of a cold start that are Docker's, through the API as the runtime calls it: create
     * and start of a container of the image (running {@code true}). The rest of a cold processor's
     * start is the reconciler's reaction, the agent's JVM start, its registration and the job's claim.
     */
    static void parts(int n) throws Exception {
        var docker = DockerEngine.client(System.getenv().getOrDefault("DOCKER_HOST", "unix:///var/run/docker.sock"));
        List<Double> create = new ArrayList<>(), start = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            String id = docker.createContainerCmd(IMAGE).withCmd("true").exec().getId();
            long t1 = System.nanoTime();
            docker.startContainerCmd(id).exec();
            long t2 = System.nanoTime();
            create.add((t1 - t0) / 1e6);
            start.add((t2 - t1) / 1e6);
            docker.removeContainerCmd(id).withForce(true).exec();
        }
        put("containers.coldParts.apiCreate.p50", Figures.p(create, 50));
        put("containers.coldParts.apiStart.p50", Figures.p(start, 50));
    }

    /** Removes every container (and its volumes) of the manager on {@code instance}'s Redis. */
    static void removeAll(String instance) throws IOException, InterruptedException {
        for (String id : run("docker", "ps", "-aq", "--filter", "label=warmpool.dev/instance=" + instance)
                .split("\n")) {
            if (!id.isBlank()) {
                // the manager may be removing it already; whatever is left goes
                new ProcessBuilder("docker", "rm", "-f", "-v", id.trim())
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start()
                        .waitFor();
            }
        }
    }

    static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " exited " + p.exitValue() + ": " + out);
        }
        return out;
    }
}
