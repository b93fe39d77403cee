package dev.warmpool.bench;

import static dev.warmpool.bench.Figures.p;
import static dev.warmpool.bench.Figures.put;
import static dev.warmpool.bench.Harness.*;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.ManagerProcess;
import dev.warmpool.agent.SpawnBench;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.runtime.docker.DockerEngine;
import dev.warmpool.runtime.local.LocalAgents;
import dev.warmpool.store.RedisServer;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import redis.clients.jedis.Jedis;

/** A burst on 4 warm processors and what it costs (CPU by process, Redis commands), beside the machine's own spawn ceiling. */
final class Burst {
    private Burst() {}

    static void burst(ManagerProcess m, Jedis j, String label, List<String> command, int n) throws Exception {
        burst(m, j, label, command, n, 1);
    }

    /** With {@code batch} > 1 the jobs go in batches of that many ({@code POST /jobs/batch}), 4 batches in flight. */
    static void burst(ManagerProcess m, Jedis j, String label, List<String> command, int n, int batch)
            throws Exception {
        List<List<Long>> seen = new ArrayList<>(); // the agents as they are when the burst starts, read again after it
        burst(m, j, label, command, n, batch, "", () -> {
            if (seen.isEmpty()) {
                seen.add(LocalAgents.agentPids(redisUrl(j)));
            }
            List<Long> agents = seen.get(0);
            return new long[] {
                agents.stream().mapToLong(a -> cpuMs(a, false)).sum(),
                agents.stream().mapToLong(Harness::descendantsCpuMs).sum()
            };
        });
    }

    /**
     * The burst on a pool of 4 processors whose spec has {@code poolExtra} (JSON members after the
     * command's, e.g. a container template); {@code processCpu} reads the CPU ms so far of the
     * pool's agents and of what they started (the jobs' processes), read before and after.
     */
    static void burst(
            ManagerProcess m,
            Jedis j,
            String label,
            List<String> command,
            int n,
            int batch,
            String poolExtra,
            Supplier<long[]> processCpu)
            throws Exception {
        String type = "b-burst-" + label.toLowerCase();
        send(
                m,
                "PUT",
                "/pools/" + type,
                "{\"command\": [\"" + String.join("\", \"", command)
                        + "\"], \"minIdle\": 4, \"maxSize\": 4, \"maxQueued\": 100000" + poolExtra + "}");
        await(() -> count(m, type, "idle") == 4);
        // warm processors are the premise: the pool's own agents take a first round (unmeasured) before the
        // burst, so that it does not time their JIT compiling the job path (a fifth of their CPU in a 2,000-job
        // burst on fresh agents), as BullMQ's workers get 200 warm-up jobs (bench/bullmq/burst.mjs)
        Pipelined.post(m.base(), "/jobs", "{\"type\": \"" + type + "\"}", Math.min(n, 500), 4, 16);
        await(() -> Harness.queued(j, type) == 0 && count(m, type, "busy") == 0);
        long memBefore = usedMemory(j);
        j.configResetStat();
        long redisPid = Long.parseLong(j.info("server").replaceAll("(?s).*process_id:(\\d+).*", "$1"));
        long[] procs0 = processCpu.get();
        long[] cpu0 = {
            cpuMs(m.process.pid(), false),
            procs0[0],
            procs0[1],
            cpuMs(redisPid, false),
            cpuMs(ProcessHandle.current().pid(), false)
        };
        List<String> ids;
        if (batch <= 1) {
            ids = Pipelined.post(m.base(), "/jobs", "{\"type\": \"" + type + "\"}", n, 4, 16);
        } else {
            String body = "{\"jobs\": [" + String.join(", ", Collections.nCopies(batch, "{\"type\": \"" + type + "\"}"))
                    + "]}";
            ids = new ArrayList<>();
            for (String reply : Pipelined.post(m.base(), "/jobs/batch", body, n / batch, 4, 1, r -> r)) {
                for (JsonNode job : Pipelined.json(reply).path("jobs")) {
                    ids.add(id(job));
                }
            }
        }
        await(() -> Harness.queued(j, type) == 0 && count(m, type, "busy") == 0);
        Map<String, Long> stats = commandStats(j);
        long[] procs1 = processCpu.get();
        long[] cpu1 = {
            cpuMs(m.process.pid(), false),
            procs1[0],
            procs1[1],
            cpuMs(redisPid, false),
            cpuMs(ProcessHandle.current().pid(), false)
        };
        List<Double> wait = new ArrayList<>();
        long first = Long.MAX_VALUE, last = 0;
        for (String id : ids) {
            List<String> t = j.hmget(KeySchema.job(type, id), "submittedAt", "startedAt", "finishedAt");
            long submitted = Long.parseLong(t.get(0)),
                    started = Long.parseLong(t.get(1)),
                    done = Long.parseLong(t.get(2));
            wait.add((double) (started - submitted));
            first = Math.min(first, submitted);
            last = Math.max(last, done);
        }
        String k = "burst." + label;
        put(k + ".jobs", n);
        put(k + ".jobsPerSecond", n * 1000.0 / Math.max(1, last - first));
        put(k + ".queueWait.p50", p(wait, 50));
        put(k + ".queueWait.p99", p(wait, 99));
        // where the two cores went, in CPU milliseconds per job (job processes: the reaped children of the agents)
        String[] who = {"manager", "agents", "jobProcesses", "redis", "client"};
        for (int i = 0; i < who.length; i++) {
            put(k + ".cpuMsPerJob." + who[i], (double) (cpu1[i] - cpu0[i]) / n);
        }
        if (label.equals("true")) {
            // commands the clients sent (each one round trip) and those the scripts ran inside Redis
            long topLevel = stats.getOrDefault("evalsha", 0L)
                    + stats.getOrDefault("eval", 0L)
                    + stats.getOrDefault("blpop", 0L)
                    + stats.getOrDefault("hgetall", 0L);
            long all = stats.values().stream().mapToLong(Long::longValue).sum();
            put("redis.roundTripsPerJob", (double) topLevel / n);
            put("redis.commandsPerJob", (double) all / n);
            put("redis.commandstats", stats);
            put("redis.bytesPerRetainedJob", (usedMemory(j) - memBefore) / n);
        }
    }

    /**
     * The same burst of {@code true} on the docker runtime (bench/run --burst, when a dockerd
     * answers): a manager of its own whose pool's 4 processors are warm containers of {@link
     * Containers#IMAGE}, each job run by the container's room init as the container's job user.
     * CPU by role as for the local runtime: the agents' JVMs, and all else in the containers (their
     * init, the room's init, the jobs). Skipped with a note when no dockerd answers.
     */
    static void docker(int n) throws Exception {
        try {
            Containers.run("docker", "info");
        } catch (Exception e) {
            put("burst.docker.skipped", "no Docker engine answers (docker info)");
            return;
        }
        Containers.run("bash", "src/main/docker/base-image.sh", Containers.IMAGE);
        String password = "bench-" + Long.toHexString(System.nanoTime());
        String gateway = DockerEngine.gateway(
                DockerEngine.client(System.getenv().getOrDefault("DOCKER_HOST", "unix:///var/run/docker.sock")),
                "bridge");
        RedisServer redis = RedisServer.ephemeral("--requirepass", password, "--bind", "127.0.0.1", gateway);
        String instance = "127.0.0.1:" + redis.port();
        try (Jedis j = new Jedis("127.0.0.1", redis.port())) {
            j.auth(password);
            ManagerProcess m = Harness.manager(
                    "redis://:" + password + "@" + instance, "bench-burst-docker", "-Dwarmpool.runtime.type=docker");
            try {
                burst(
                        m,
                        j,
                        "docker",
                        List.of("true"),
                        n,
                        1,
                        ", \"template\": {\"image\": \"" + Containers.IMAGE + "\"}",
                        () -> containerCpuMs(instance));
            } finally {
                m.stop();
            }
        } finally {
            Containers.removeAll(instance);
            redis.stop();
        }
        put(
                "burst.dockerOverLocal",
                Figures.number("burst.docker.jobsPerSecond") / Figures.number("burst.true.jobsPerSecond"));
    }

    /**
     * The CPU ms so far of the processes in the containers labelled with {@code instance}: {the
     * agents' JVMs' own, all else (each live process's own and what it reaped, but the JVMs' own)}.
     */
    static long[] containerCpuMs(String instance) {
        long agents = 0, rest = 0;
        try {
            for (String id : Containers.run("docker", "ps", "-q", "--filter", "label=warmpool.dev/instance=" + instance)
                    .split("\n")) {
                if (id.isBlank()) {
                    continue;
                }
                long pid = Long.parseLong(Containers.run("docker", "inspect", "-f", "{{.State.Pid}}", id.trim())
                        .trim());
                List<ProcessHandle> all = new ArrayList<>();
                ProcessHandle.of(pid).ifPresent(h -> {
                    all.add(h);
                    all.addAll(h.descendants().toList());
                });
                for (ProcessHandle h : all) {
                    boolean jvm =
                            h.info().command().map(c -> c.endsWith("/java")).orElse(false);
                    long own = cpuMs(h.pid(), false);
                    if (jvm) {
                        agents += own;
                    } else {
                        rest += own;
                    }
                    rest += cpuMs(h.pid(), true);
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("could not read the containers' CPU: " + e.getMessage(), e);
        }
        return new long[] {agents, rest};
    }

    /**
     * BullMQ's burst beside warmpool's, on the same Redis (bench/bullmq/burst): {@code n} `true`
     * jobs added with addBulk in chunks of 100, run by 4 worker processes (concurrency 1 each, a
     * spawned `true` per job); then warmpool's jobs/s over BullMQ's. Skipped with a note when node
     * or npm is missing; a failure is noted, not thrown, so warmpool's figures are still reported.
     */
    static void bullmq(String redisUrl, int n) {
        if (!Notebook.onPath("node") || !Notebook.onPath("npm")) {
            put("burst.bullmq.skipped", "node or npm is not on PATH");
            return;
        }
        try {
            Notebook.figures(
                    "burst.bullmq",
                    new ProcessBuilder("bench/bullmq/burst", redisUrl, String.valueOf(n), "4")
                            .redirectError(ProcessBuilder.Redirect.INHERIT));
        } catch (Exception e) {
            put("burst.bullmq.failed", String.valueOf(e.getMessage()));
            return;
        }
        double bullmq = Figures.number("burst.bullmq.jobsPerSecond");
        for (String label : List.of("true", "trueBatch")) {
            if (Figures.ALL.containsKey("burst." + label + ".jobsPerSecond")) {
                put("burst." + label + "OverBullmq", Figures.number("burst." + label + ".jobsPerSecond") / bullmq);
            }
        }
    }

    /**
     * The machine's own ceiling for a process per job: `true` spawned back to back by 1, 2 and 4
     * threads of a JVM launched as the agents are (VFORK), no warmpool, no Redis. Run in a child
     * JVM so the launch mechanism matches.
     */
    static void spawnCeiling(int perThread) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx32m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1"));
        if (Runtime.version().feature() <= 25) {
            cmd.add("-Djdk.lang.Process.launchMechanism=VFORK");
        }
        cmd.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                Bench.class.getName(),
                "--spawn-ceiling",
                Integer.toString(perThread)));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        for (String line : out.split("\n")) {
            if (line.startsWith("spawnCeiling.")) {
                String[] kv = line.split("=");
                put(kv[0], Double.parseDouble(kv[1]));
            }
        }
    }

    static void spawnCeilingHere(int perThread) throws Exception {
        for (int threads : new int[] {1, 2, 4}) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> all = new ArrayList<>();
            long t0 = System.nanoTime();
            for (int t = 0; t < threads; t++) {
                all.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        Process p = new ProcessBuilder("true")
                                .redirectErrorStream(true)
                                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                                .start();
                        p.getInputStream().readAllBytes();
                        p.waitFor();
                    }
                    return null;
                }));
            }
            for (Future<?> f : all) {
                f.get();
            }
            double perSecond = threads * perThread * 1e9 / (System.nanoTime() - t0);
            pool.shutdown();
            System.out.println("spawnCeiling." + threads + "spawners.perSecond=" + perSecond);
        }
        // the same `true`, each in a sandbox as a local processor runs it (bubblewrap, when here): the ceiling
        // of sandboxed jobs on this machine, with no dispatch at all
        for (int threads : new int[] {1, 4}) {
            double perSecond = SpawnBench.roomCeiling(threads, perThread);
            if (perSecond > 0) {
                System.out.println("spawnCeiling." + threads + "sandboxed.perSecond=" + perSecond);
            }
        }
    }
}
