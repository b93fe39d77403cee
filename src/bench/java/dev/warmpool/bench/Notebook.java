package dev.warmpool.bench;

import static dev.warmpool.bench.Figures.put;
import static dev.warmpool.bench.Harness.await;
import static dev.warmpool.bench.Harness.count;
import static dev.warmpool.bench.Harness.get;
import static dev.warmpool.bench.Harness.id;
import static dev.warmpool.bench.Harness.millis;
import static dev.warmpool.bench.Harness.send;
import static dev.warmpool.bench.Harness.withManager;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.ManagerProcess;
import dev.warmpool.protocol.KeySchema;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.resps.StreamEntry;

/**
 * What a notebook user sees, side by side in one run: the Python client's submit->result on a
 * manager that wakes on end messages and on one that re-reads, BullMQ's on the same Redis, the
 * delay to a job's first live log line, a burst of a job that prints with live logs on and off,
 * and Optuna's TPE against random search on the same warm workers. The Python parts need
 * {@code PYTHON} (default /usr/bin/python3, with python3-optuna for the last); BullMQ needs node
 * and npm; a part whose tool is missing is skipped with a note, not failed.
 */
final class Notebook {
    private static final String PYTHON = System.getenv().getOrDefault("PYTHON", "/usr/bin/python3");

    private Notebook() {}

    static void notebook(String redisUrl, Jedis j, int n) throws Exception {
        withManager(redisUrl, new String[0], m -> {
            python(m, "notebook.python.endMessage", "client_latency.py", String.valueOf(n));
            firstLogLine(m, j, Math.max(10, n / 10));
            Burst.burst(m, j, "echoWarmup", List.of("echo", "step 1 loss 0.5"), 2 * n);
            Burst.burst(m, j, "echoLiveLog", List.of("echo", "step 1 loss 0.5"), 10 * n);
            python(m, "notebook.optuna", "optuna_tpe_vs_random.py", "40", "5");
        });
        withManager(
                redisUrl,
                new String[] {"-Dwarmpool.jobs.wake-on-end=false"},
                m -> python(m, "notebook.python.polling", "client_latency.py", String.valueOf(n)));
        withManager(redisUrl, new String[] {"-Dwarmpool.jobs.log-lines=0"}, m -> {
            Burst.burst(m, j, "echoWarmup", List.of("echo", "step 1 loss 0.5"), 2 * n);
            Burst.burst(m, j, "echoNoLiveLog", List.of("echo", "step 1 loss 0.5"), 10 * n);
        });
        if (Figures.ALL.containsKey("burst.echoNoLiveLog.jobsPerSecond")) {
            put(
                    "notebook.burstLiveLogOverNone",
                    Figures.number("burst.echoLiveLog.jobsPerSecond")
                            / Figures.number("burst.echoNoLiveLog.jobsPerSecond"));
        }
        bullmq(redisUrl, n);
    }

    /** One of bench/python's scripts against {@code m}; its JSON figures under {@code prefix}. */
    static void python(ManagerProcess m, String prefix, String script, String... args) throws Exception {
        if (!Files.isExecutable(Path.of(PYTHON))) {
            put(prefix + ".skipped", PYTHON + " is missing");
            return;
        }
        List<String> cmd = new ArrayList<>(
                List.of(PYTHON, Path.of("bench", "python", script).toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().put("WARMPOOL_URL", m.base());
        pb.environment().put("WARMPOOL_TOKEN", Harness.TOKEN);
        pb.environment().put("PYTHONDONTWRITEBYTECODE", "1");
        figures(prefix, pb);
    }

    /** BullMQ (bench/bullmq) on the same Redis: a worker that spawns `true`, a client that adds then waits. */
    private static void bullmq(String redisUrl, int n) throws Exception {
        if (!onPath("node") || !onPath("npm")) {
            put("notebook.bullmq.skipped", "node or npm is not on PATH");
            return;
        }
        figures(
                "notebook.bullmq",
                new ProcessBuilder("bench/bullmq/run", redisUrl, String.valueOf(n))
                        .redirectError(ProcessBuilder.Redirect.INHERIT));
    }

    /** Runs {@code pb}; the JSON figures of its last output line under {@code prefix}. */
    static void figures(String prefix, ProcessBuilder pb) throws Exception {
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException(pb.command() + " failed: " + out);
        }
        JsonNode figures = ManagerProcess.JSON.readTree(out.substring(out.lastIndexOf('\n') + 1));
        for (Iterator<Map.Entry<String, JsonNode>> it = figures.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            put(
                    prefix + "." + f.getKey(),
                    f.getValue().isNumber()
                            ? (Object) f.getValue().doubleValue()
                            : f.getValue().toString());
        }
    }

    /**
     * A warm job that prints a line and goes on running: from submit to the line as a follower of
     * {@code GET /jobs/{id}/logs?follow=true} reads it, and from the job's start to the line's
     * entry in its event stream (the agent's batching, server clocks).
     */
    private static void firstLogLine(ManagerProcess m, Jedis j, int n) throws Exception {
        String type = "b-log";
        send(
                m,
                "PUT",
                "/pools/" + type,
                "{\"command\": [\"sh\", \"-c\", \"echo first line; sleep 0.2\"], \"minIdle\": 1, \"maxSize\": 1}");
        await(() -> count(m, type, "idle") == 1);
        List<Double> client = new ArrayList<>(), agent = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            String id = id(send(m, "POST", "/jobs", "{\"type\": \"" + type + "\"}"));
            HttpResponse<InputStream> r = ManagerProcess.HTTP.send(
                    m.request("GET", "/jobs/" + id + "/logs?follow=true", null, Map.of()),
                    HttpResponse.BodyHandlers.ofInputStream());
            try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                String line = in.readLine();
                client.add((System.nanoTime() - t0) / 1e6);
                if (!"first line".equals(line)) {
                    throw new IllegalStateException("the first line of " + id + " was " + line);
                }
                while (in.readLine() != null) {
                    // to the job's end
                }
            }
            JsonNode job = get(m, "/jobs/" + id + "?wait=30");
            List<StreamEntry> first =
                    j.xrange(KeySchema.jobEvents(type, id), (StreamEntryID) null, (StreamEntryID) null, 1);
            agent.add(first.get(0).getID().getTime() - millis(job, "startedAt"));
            await(() -> count(m, type, "idle") == 1, 1);
        }
        put("notebook.firstLogLine.jobs", n);
        put("notebook.firstLogLine.clientFromSubmit.p50", Figures.p(client, 50));
        put("notebook.firstLogLine.clientFromSubmit.p99", Figures.p(client, 99));
        put("notebook.firstLogLine.streamFromStart.p50", Figures.p(agent, 50));
        put("notebook.firstLogLine.streamFromStart.p99", Figures.p(agent, 99));
        send(m, "DELETE", "/pools/" + type, null);
    }

    static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }
}
