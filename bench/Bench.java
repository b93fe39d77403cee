// The benchmark suite: warm and cold dispatch, a burst, Redis cost, scale, footprint, in one run,
// figures side by side. Not a test: it prints (and writes target/bench.json) and never fails on time.
//
//   ./mvnw -q package -DskipTests && java -cp target/classes:target/warmpool-agent.jar bench/Bench.java [--quick]
//   ... bench/Bench.java --soak [jobs] [retention seconds]    Redis memory over a soak (default 20000 jobs, 20 s)
//   ... bench/Bench.java --sweeps [trials] [setup s] [work s]   a sweep in three modes (default 32, 2, 0.2)
//   ... bench/Bench.java --scale                                 only the reconcile pass and a dispatch at 100, 1,000, 10,000 processors
//   ... bench/Bench.java --burst [jobs]                          only the burst, on `true` and the no-op (default 2000)
//   ... bench/Bench.java --startup                               manager start-up: JVM flags and caches side by side
//
// It starts its own redis-server (from PATH or the embedded-redis jar) and the packaged manager.
// --quick is the small version CI runs to prove the benchmark still works.
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.store.RedisServer;
import dev.warmpool.protocol.Script;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.function.BooleanSupplier;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

public class Bench {
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static final Map<String, Object> RESULTS = new LinkedHashMap<>();
    /** The benchmark's own admin token: every manager it starts reads its hash from target/bench/tokens. */
    static final String TOKEN = "wp_bench_" + Long.toHexString(new java.security.SecureRandom().nextLong());
    static boolean quick;

    record Manager(Process process, String base, double readyMs) {
    }

    public static void main(String[] args) throws Exception {
        quick = List.of(args).contains("--quick");
        if (List.of(args).contains("--soak")) {
            soak(args.length > 1 ? Integer.parseInt(args[1]) : 20_000, args.length > 2 ? Integer.parseInt(args[2]) : 20);
            return;
        }
        if (List.of(args).contains("--spawn-ceiling")) {
            spawnCeilingHere(Integer.parseInt(args[1]));
            return;
        }
        if (List.of(args).contains("--startup")) {
            onOwnRedis((url, j) -> startup(url));
            return;
        }
        if (List.of(args).contains("--scale")) {
            onOwnRedis((url, j) -> scale(url, j, new int[] {1, 10, 100}));
            return;
        }
        if (List.of(args).contains("--burst")) {
            int n = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
            // BENCH_MANAGER_OPTS: extra manager JVM options, e.g. a flight recording of it or of the agents
            String extra = System.getenv().getOrDefault("BENCH_MANAGER_OPTS", "").trim();
            onOwnRedis((url, j) -> {
                withManager(url, extra.isEmpty() ? new String[0] : extra.split("\\s+"), m -> {
                    burst(m, j, "warmup", List.of("warmpool:noop"), n); // JIT the paths first, as the full run's earlier parts do
                    burst(m, j, "true", List.of("true"), n);
                    burst(m, j, "trueBatch", List.of("true"), n, 100);
                    burst(m, j, "noop", List.of("warmpool:noop"), n);
                    agentFootprint(j, url);
                    put("manager.rssAfterBurstMb", rssKb(m.process().pid()) / 1024);
                });
                spawnCeiling(Math.max(50, n / 8));
            });
            return;
        }
        if (List.of(args).contains("--sweeps")) {
            onOwnRedis((url, j) -> withManager(url, new String[0], m -> sweeps(m, args.length > 1 ? Integer.parseInt(args[1]) : 32,
                    args.length > 2 ? Double.parseDouble(args[2]) : 2, args.length > 3 ? Double.parseDouble(args[3]) : 0.2)));
            return;
        }
        onOwnRedis((url, j) -> {
            withManager(url, new String[0], m -> {
                put("manager.readyMs", m.readyMs());
                put("manager.rssStartMb", rssKb(m.process().pid()) / 1024);
                idle(m, quick ? 50 : 200);
                cold(m, quick ? 3 : 10);
                burst(m, j, "true", List.of("true"), quick ? 200 : 2000);
                burst(m, j, "trueBatch", List.of("true"), quick ? 200 : 2000, 100);
                burst(m, j, "noop", List.of("warmpool:noop"), quick ? 200 : 2000);
                spawnCeiling(quick ? 50 : 300);
                memoryPerProcessor(m, j, quick ? 100 : 1000);
                agentFootprint(j, url);
                agentStart(m, j);
                put("manager.rssAfterBurstMb", rssKb(m.process().pid()) / 1024);
                sweeps(m, quick ? 4 : 32, quick ? 0.2 : 2, quick ? 0.05 : 0.2);
                gang(m, quick ? 10 : 50);
            });
            scale(url, j, quick ? new int[] {1, 2} : new int[] {1, 10, 100});
            cds(url);
            if (!quick) {
                startup(url);
            }
        });
    }

    interface OnRedis {
        void run(String redisUrl, Jedis j) throws Exception;
    }

    interface OnManager {
        void run(Manager m) throws Exception;
    }

    /** One part of the bench on a redis-server of its own, stopped after it with the agents it left; then the report. */
    static void onOwnRedis(OnRedis part) throws Exception {
        RedisServer redis = RedisServer.ephemeral();
        try (Jedis j = new Jedis(URI.create(redis.url()))) {
            part.run(redis.url(), j);
        } finally {
            killAgents(redis.url());
            redis.stop();
        }
        report();
    }

    /** The packaged manager, ready, for {@code part}, stopped after it. */
    static void withManager(String redisUrl, String[] options, OnManager part) throws Exception {
        Manager m = manager(redisUrl, "bench-manager", options);
        try {
            part.run(m);
        } finally {
            stop(m);
        }
    }

    // ---- 1, 2: one job after another, on a warm processor and on a cold one

    static void idle(Manager m, int n) throws Exception {
        send(m, "PUT", "/pools/b-idle", "{\"command\": [\"true\"], \"minIdle\": 1, \"maxSize\": 1}");
        await(() -> contains(m, "/pools/b-idle", "\"idle\":1"));
        List<List<Double>> t = oneAfterAnother(m, "b-idle", n, () -> true);
        percentiles("warm", t.get(0), t.get(1), t.get(2));
    }

    /**
     * {@code n} jobs of {@code type}, each submitted once {@code ready} holds and waited for: submit
     * to running and to finished by the server's clocks, and submit to finished as the client sees it.
     */
    static List<List<Double>> oneAfterAnother(Manager m, String type, int n, BooleanSupplier ready) throws Exception {
        List<Double> running = new ArrayList<>(), finished = new ArrayList<>(), client = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            await(ready, 2);
            long c0 = System.nanoTime();
            String id = field(send(m, "POST", "/jobs", "{\"type\": \"" + type + "\"}"), "id");
            String job = send(m, "GET", "/jobs/" + id + "?wait=30", null);
            client.add((System.nanoTime() - c0) / 1e6);
            running.add(millis(job, "startedAt") - millis(job, "submittedAt"));
            finished.add(millis(job, "finishedAt") - millis(job, "submittedAt"));
        }
        return List.of(running, finished, client);
    }

    static void cold(Manager m, int n) throws Exception {
        List<Double> running = new ArrayList<>(), finished = new ArrayList<>(), client = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            send(m, "PUT", "/pools/b-cold-" + i, "{\"command\": [\"true\"], \"minIdle\": 0, \"maxSize\": 1}");
            long c0 = System.nanoTime();
            String id = field(send(m, "POST", "/jobs", "{\"type\": \"b-cold-" + i + "\"}"), "id");
            String job = send(m, "GET", "/jobs/" + id + "?wait=60", null);
            client.add((System.nanoTime() - c0) / 1e6);
            running.add(millis(job, "startedAt") - millis(job, "submittedAt"));
            finished.add(millis(job, "finishedAt") - millis(job, "submittedAt"));
            send(m, "DELETE", "/pools/b-cold-" + i, null);
        }
        percentiles("cold", running, finished, client);
    }

    static void percentiles(String path, List<Double> running, List<Double> finished, List<Double> client) {
        put(path + ".jobs", running.size());
        put(path + ".submitToRunning.p50", p(running, 50));
        put(path + ".submitToRunning.p99", p(running, 99));
        put(path + ".submitToFinished.p50", p(finished, 50));
        put(path + ".submitToFinished.p99", p(finished, 99));
        put(path + ".clientSubmitToFinished.p50", p(client, 50));
        put(path + ".clientSubmitToFinished.p99", p(client, 99));
    }

    // ---- 3, 4: a burst on 4 warm processors, and what it costs Redis

    static void burst(Manager m, Jedis j, String label, List<String> command, int n) throws Exception {
        burst(m, j, label, command, n, 1);
    }

    /** With {@code batch} > 1 the jobs go in batches of that many ({@code POST /jobs/batch}), 4 batches in flight. */
    static void burst(Manager m, Jedis j, String label, List<String> command, int n, int batch) throws Exception {
        String type = "b-burst-" + label.toLowerCase();
        send(m, "PUT", "/pools/" + type, "{\"command\": [\"" + String.join("\", \"", command)
                + "\"], \"minIdle\": 4, \"maxSize\": 4, \"maxQueued\": 100000}");
        await(() -> contains(m, "/pools/" + type, "\"idle\":4"));
        long memBefore = usedMemory(j);
        j.configResetStat();
        long redisPid = Long.parseLong(j.info("server").replaceAll("(?s).*process_id:(\\d+).*", "$1"));
        List<Long> agents = agentPids(redisUrl(j));
        long[] cpu0 = {cpuMs(m.process().pid(), false), agents.stream().mapToLong(a -> cpuMs(a, false)).sum(),
                agents.stream().mapToLong(a -> cpuMs(a, true)).sum(), cpuMs(redisPid, false), cpuMs(ProcessHandle.current().pid(), false)};
        List<String> ids;
        if (batch <= 1) {
            ids = Pipelined.post(m.base(), "/jobs", "{\"type\": \"" + type + "\"}", n, 4, 16);
        } else {
            String body = "{\"jobs\": [" + String.join(", ", java.util.Collections.nCopies(batch, "{\"type\": \"" + type + "\"}")) + "]}";
            ids = new ArrayList<>();
            for (String reply : Pipelined.post(m.base(), "/jobs/batch", body, n / batch, 4, 1, r -> r)) {
                var found = java.util.regex.Pattern.compile("\"id\":\"([^\"]*)\"").matcher(reply);
                while (found.find()) {
                    ids.add(found.group(1));
                }
            }
        }
        await(() -> j.zcard(KeySchema.queue(type)) == 0 && contains(m, "/pools/" + type, "\"busy\":0"));
        Map<String, Long> stats = commandStats(j);
        long[] cpu1 = {cpuMs(m.process().pid(), false), agents.stream().mapToLong(a -> cpuMs(a, false)).sum(),
                agents.stream().mapToLong(a -> cpuMs(a, true)).sum(), cpuMs(redisPid, false), cpuMs(ProcessHandle.current().pid(), false)};
        List<Double> wait = new ArrayList<>();
        long first = Long.MAX_VALUE, last = 0;
        for (String id : ids) {
            List<String> t = j.hmget(KeySchema.job(type, id), "submittedAt", "startedAt", "finishedAt");
            long submitted = Long.parseLong(t.get(0)), started = Long.parseLong(t.get(1)), done = Long.parseLong(t.get(2));
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
            long topLevel = stats.getOrDefault("evalsha", 0L) + stats.getOrDefault("eval", 0L) + stats.getOrDefault("blpop", 0L)
                    + stats.getOrDefault("hgetall", 0L);
            long all = stats.values().stream().mapToLong(Long::longValue).sum();
            put("redis.roundTripsPerJob", (double) topLevel / n);
            put("redis.commandsPerJob", (double) all / n);
            put("redis.commandstats", stats);
            put("redis.bytesPerRetainedJob", (usedMemory(j) - memBefore) / n);
        }
    }

    /**
     * The machine's own ceiling for a process per job: `true` spawned back to back by 1, 2 and 4
     * threads of a JVM launched as the agents are (VFORK), no warmpool, no Redis. Run in a child
     * JVM so the launch mechanism matches.
     */
    static void spawnCeiling(int perThread) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        if (Runtime.version().feature() <= 25) {
            cmd.add("-Djdk.lang.Process.launchMechanism=VFORK");
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "bench/Bench.java", "--spawn-ceiling", Integer.toString(perThread)));
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
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
            List<java.util.concurrent.Future<?>> all = new ArrayList<>();
            long t0 = System.nanoTime();
            for (int t = 0; t < threads; t++) {
                all.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        Process p = new ProcessBuilder("true").redirectErrorStream(true)
                                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
                        p.getInputStream().readAllBytes();
                        p.waitFor();
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : all) {
                f.get();
            }
            double perSecond = threads * perThread * 1e9 / (System.nanoTime() - t0);
            pool.shutdown();
            System.out.println("spawnCeiling." + threads + "spawners.perSecond=" + perSecond);
        }
    }

    static void memoryPerProcessor(Manager m, Jedis j, int n) throws Exception {
        send(m, "PUT", "/pools/b-mem", "{\"command\": [\"true\"], \"minIdle\": 0, \"maxSize\": " + (n + 10) + "}");
        long before = usedMemory(j);
        register(j, "b-mem", n);
        put("redis.bytesPerIdleProcessor", (usedMemory(j) - before) / n);
        send(m, "DELETE", "/pools/b-mem", null);
    }

    /** Fake idle processors, registered with the agent's own script (no process behind them). */
    /** Spawn to registered of one agent at a time, 5 times, on a quiet machine (from the class-data archive, once it exists). */
    static void agentStart(Manager m, Jedis j) throws Exception {
        Path cds = Path.of("target", "bench", "cds");
        await(() -> {
            try (var files = Files.list(cds)) {
                return files.anyMatch(f -> f.toString().endsWith(".jsa"));
            } catch (Exception e) {
                return false;
            }
        });
        List<Double> starts = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String type = "b-agent-" + i;
            send(m, "PUT", "/pools/" + type, "{\"command\": [\"true\"], \"minIdle\": 1, \"maxSize\": 1}");
            await(() -> contains(m, "/pools/" + type, "\"idle\":1"));
            for (String id : j.smembers(KeySchema.prefix(type) + "procs")) {
                List<String> t = j.hmget(KeySchema.processor(type, id), "startedAt", "registeredAt");
                starts.add((double) (Long.parseLong(t.get(1)) - Long.parseLong(t.get(0))));
            }
            send(m, "DELETE", "/pools/" + type, null);
        }
        put("agent.archivedStartToRegistered.p50", p(starts, 50));
        put("agent.archivedStartToRegistered.max", p(starts, 100));
    }

    static void register(Jedis j, String type, int n) {
        Pipeline p = j.pipelined();
        for (int i = 0; i < n; i++) {
            p.eval(Script.REGISTER.source(), List.of(KeySchema.pool(type)), List.of(KeySchema.prefix(type), "sim" + i, "0", "sim"));
        }
        p.sync();
    }

    static void agentFootprint(Jedis j, String redisUrl) {
        List<Long> pids = agentPids(redisUrl);
        put("agent.rssMb", pids.stream().mapToLong(Bench::rssKb).max().orElse(0) / 1024);
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

    // ---- 5: scale: simulated processors, 100 per pool, 10x and 100x

    static void scale(String redisUrl, Jedis j, int[] poolCounts) throws Exception {
        j.flushAll();
        Manager m = manager(redisUrl, "bench-scale", "-Dwarmpool.reconcile.orphan-grace=1h",
                "-Dwarmpool.heartbeat.timeout=1h", "-Dwarmpool.reconcile.interval=1h");
        try {
            int pools = 0;
            for (int target : poolCounts) {
                for (; pools < target; pools++) {
                    send(m, "PUT", "/pools/s-" + pools, "{\"command\": [\"true\"], \"minIdle\": 0, \"maxSize\": 200}");
                    register(j, "s-" + pools, 100);
                }
                List<Double> pass = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    long t0 = System.nanoTime();
                    String report = send(m, "POST", "/", "{}", Map.of("ce-specversion", "1.0", "ce-id", "bench-" + target + "-" + i,
                            "ce-source", "/bench", "ce-type", "dev.knative.sources.ping"));
                    if (!report.contains("\"ran\":true")) {
                        throw new IllegalStateException("no pass ran: " + report);
                    }
                    pass.add((System.nanoTime() - t0) / 1e6);
                }
                List<Double> dispatch = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    long t0 = System.nanoTime();
                    send(m, "POST", "/jobs", "{\"type\": \"s-0\"}");
                    dispatch.add((System.nanoTime() - t0) / 1e6);
                }
                String k = "scale." + (target * 100) + "processors";
                put(k + ".pools", target);
                put(k + ".reconcilePassMs.p50", p(pass, 50));
                put(k + ".submitMs.p50", p(dispatch, 50));
            }
        } finally {
            stop(m);
        }
        j.flushAll();
    }

    // ---- 6: manager footprint with a class-data cache

    static void cds(String redisUrl) throws Exception {
        Path jsa = Path.of("target", "quarkus-app", "app-cds.jsa");
        if (!Files.exists(jsa)) {
            put("manager.appcds", "not built (package with -Dquarkus.package.jar.appcds.enabled=true)");
            return;
        }
        // the archive records the class path as the build ran it: start from target/quarkus-app, as it did
        Manager m = manager(redisUrl, "bench-cds", jsa.getParent(), "-XX:SharedArchiveFile=app-cds.jsa");
        put("manager.appcds.readyMs", m.readyMs());
        put("manager.appcds.rssStartMb", rssKb(m.process().pid()) / 1024);
        stop(m);
    }

    // ---- soak: memory follows the retained jobs, not the jobs ever run

    static void soak(int jobs, int retentionSeconds) throws Exception {
        RedisServer redis = RedisServer.ephemeral();
        Manager m = manager(redis.url(), "bench-soak", "-Dwarmpool.jobs.retention=" + retentionSeconds + "s");
        try (Jedis j = new Jedis(URI.create(redis.url()))) {
            send(m, "PUT", "/pools/soak", "{\"command\": [\"true\"], \"minIdle\": 4, \"maxSize\": 4, \"maxQueued\": 100000}");
            await(() -> contains(m, "/pools/soak", "\"idle\":4"));
            long before = usedMemory(j), peak = before;
            long t0 = System.nanoTime();
            for (int sent = 0; sent < jobs; ) {
                List<CompletableFuture<HttpResponse<String>>> batch = new ArrayList<>();
                for (int i = 0; i < 500 && sent < jobs; i++, sent++) {
                    batch.add(HTTP.sendAsync(request(m, "POST", "/jobs", "{\"type\": \"soak\"}"), HttpResponse.BodyHandlers.ofString()));
                }
                for (CompletableFuture<HttpResponse<String>> f : batch) {
                    if (f.get().statusCode() != 202) {
                        throw new IllegalStateException(f.get().body());
                    }
                }
                await(() -> j.zcard(KeySchema.queue("soak")) < 200);
                peak = Math.max(peak, usedMemory(j));
            }
            await(() -> j.zcard(KeySchema.queue("soak")) == 0 && contains(m, "/pools/soak", "\"busy\":0"));
            double seconds = (System.nanoTime() - t0) / 1e9;
            long atEnd = usedMemory(j), keysAtEnd = j.dbSize();
            long expired = System.currentTimeMillis() + (retentionSeconds + 2) * 1000L;
            await(() -> System.currentTimeMillis() > expired, 500); // let the retention period pass
            send(m, "POST", "/jobs", "{\"type\": \"soak\"}"); // one more end trims the job index
            await(() -> j.dbSize() < 40);
            System.out.printf("soak: %d jobs of `true` on 4 processors in %.0f s (%.0f jobs/s), retention %d s%n",
                    jobs, seconds, jobs / seconds, retentionSeconds);
            System.out.printf("redis used_memory: before %d KB, peak %d KB, at the end %d KB (%d keys), "
                    + "after retention %d KB (%d keys)%n", before / 1024, peak / 1024, atEnd / 1024, keysAtEnd,
                    usedMemory(j) / 1024, j.dbSize());
        } finally {
            stop(m);
            killAgents(redis.url());
            redis.stop();
        }
    }

    // ---- 7: a sweep in three modes: a fresh processor per trial (as Katib runs trials), warm
    // processors that start a new process per trial, and persistent workers. The trial is a
    // Python script whose import takes `setup` seconds and whose training takes `work` seconds.

    static void sweeps(Manager m, int trials, double setup, double work) throws Exception {
        Path script = Path.of("target", "bench", "slow_trial.py").toAbsolutePath();
        Files.createDirectories(script.getParent());
        Files.writeString(script, "import os, time\nimport warmpool_worker\n"
                + "time.sleep(float(os.environ['SETUP_SECONDS']))  # the framework import and data loading\n"
                + "def train(config):\n    time.sleep(float(os.environ['WORK_SECONDS']))\n"
                + "    return {'loss': (config['x'] - 3) ** 2}\n"
                + "warmpool_worker.serve(train)\n");
        String env = "{\"PYTHONPATH\": \"" + Path.of("clients", "python").toAbsolutePath() + "\", \"SETUP_SECONDS\": \"" + setup
                + "\", \"WORK_SECONDS\": \"" + work + "\"}";
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
            send(m, "PUT", "/pools/" + type, "{\"command\": " + command + ", \"env\": " + env + ", \"maxSize\": 4, "
                    + mode.getValue() + "}");
            if (!mode.getKey().equals("fresh")) {
                await(() -> contains(m, "/pools/" + type, "\"idle\":4"));
            }
            if (mode.getKey().equals("persistent")) {
                Thread.sleep((long) (setup * 1000) + 500); // a warm pool's workers have done their imports
            }
            long t0 = System.nanoTime();
            String id = field(send(m, "POST", "/sweeps", String.format(sweep, type)), "id");
            await(() -> !contains(m, "/sweeps/" + id, "\"state\":\"RUNNING\""), 50);
            double seconds = (System.nanoTime() - t0) / 1e9;
            String done = send(m, "GET", "/sweeps/" + id, null);
            if (!done.contains("\"state\":\"SUCCEEDED\"") || !done.contains("\"succeeded\":" + trials)) {
                throw new IllegalStateException("sweep " + id + " did not succeed: " + done.substring(0, Math.min(400, done.length())));
            }
            put("sweep." + mode.getKey() + ".wallSeconds", Math.round(seconds * 100) / 100.0);
            send(m, "DELETE", "/pools/" + type, null);
        }
        double persistent = (double) RESULTS.get("sweep.persistent.wallSeconds");
        put("sweep.freshVsPersistent", Math.round((double) RESULTS.get("sweep.fresh.wallSeconds") / persistent * 10) / 10.0);
        put("sweep.warmVsPersistent", Math.round((double) RESULTS.get("sweep.warm.wallSeconds") / persistent * 10) / 10.0);
    }

    // ---- 8: a warm gang (1 parameter server, 2 workers, each its own agent) taking job after job:
    // the claim of all three members is one script; the job runs when the slowest member starts.

    static void gang(Manager m, int n) throws Exception {
        send(m, "PUT", "/pools/b-gang", "{\"command\": [\"true\"], \"minIdle\": 1, \"maxSize\": 1, \"gang\": "
                + "{\"ps\": {\"count\": 1, \"command\": [\"sleep\", \"60\"]}, \"worker\": {\"count\": 2}}}");
        await(() -> contains(m, "/pools/b-gang", "\"idle\":3"));
        // before each job, the ps member is free again
        List<List<Double>> t = oneAfterAnother(m, "b-gang", n, () -> contains(m, "/pools/b-gang", "\"idle\":3"));
        List<Double> running = t.get(0), finished = t.get(1), client = t.get(2);
        put("gang.jobs", n);
        put("gang.submitToRunning.p50", p(running, 50));
        put("gang.submitToRunning.p99", p(running, 99));
        put("gang.submitToFinished.p50", p(finished, 50));
        put("gang.clientSubmitToFinished.p50", p(client, 50));
        send(m, "DELETE", "/pools/b-gang", null);
    }

    // ---- 6b: manager start-up, launch to ready, median of 3 launches per way of starting it:
    // this JVM plain; C1 only with the serial GC (the manager waits on Redis and processes, it
    // needs no C2); and, with a JDK 25 (JAVA25_HOME, or Temurin 25 under /usr/lib/jvm), plain and
    // with an AOT cache (JEP 483/514/515) recorded by the image's training script
    // (src/main/docker/aot-train.sh) with the same flags, on the default fast-jar layout and on the
    // aot-jar layout (./mvnw package -Paot, built here into target/bench/aot-jar), whose classes the
    // JVM loads itself and so can cache whole.

    /**
     * The JVM options of the images (src/main/docker/Dockerfile.jvm and Dockerfile.aot: C1 only, the
     * serial GC, the heap at 75 % of memory), with memory as under knative/service.yaml's 512Mi
     * limit: on this 24 GB machine the JVM would otherwise size the heap for 24 GB (RSS after the
     * burst 238 MB against 143 MB, the same jobs per second).
     */
    static final String LEAN = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:MaxRAM=512m -XX:MaxRAMPercentage=75";
    /** No demo agent starting beside the manager: the manager's own start is measured. */
    static final String QUIET = "-Dwarmpool.pools.demo.min-idle=0";

    static void startup(String redisUrl) throws Exception {
        String here = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path fastJar = Path.of("target", "quarkus-app").toAbsolutePath();
        startupWay(redisUrl, "jdk" + Runtime.version().feature() + ".plain", here, fastJar, "");
        startupWay(redisUrl, "jdk" + Runtime.version().feature() + ".lean", here, fastJar, LEAN);
        Path jdk25 = jdk25();
        if (jdk25 == null) {
            put("startup.jdk25", "no JDK 25 found (set JAVA25_HOME)");
            return;
        }
        String java25 = jdk25.resolve("bin").resolve("java").toString();
        startupWay(redisUrl, "jdk25.plain", java25, fastJar, "");
        startupWay(redisUrl, "jdk25.lean", java25, fastJar, LEAN);
        Path cache = train(java25, fastJar, Path.of("target", "bench", "manager.aot").toAbsolutePath());
        put("startup.jdk25.aotCacheMb", Files.size(cache) / (1024 * 1024));
        startupWay(redisUrl, "jdk25.lean+aot", java25, fastJar, LEAN + " -XX:AOTCache=" + cache);
        Path aotJar = Path.of("target", "bench", "aot-jar").toAbsolutePath();
        // the build records its artifact for the integration tests: theirs stays target/quarkus-app
        Path artifact = Path.of("target", "quarkus-artifact.properties");
        byte[] recorded = Files.exists(artifact) ? Files.readAllBytes(artifact) : null;
        Process build = new ProcessBuilder("./mvnw", "-q", "quarkus:build", "-Paot",
                "-Dquarkus.package.output-directory=" + aotJar).inheritIO().start();
        int built = build.waitFor();
        if (recorded != null) {
            Files.write(artifact, recorded);
        }
        if (built != 0) {
            put("startup.aotJar", "the aot-jar build failed (./mvnw quarkus:build -Paot)");
            return;
        }
        startupWay(redisUrl, "jdk25.lean (aot-jar)", java25, aotJar, LEAN);
        Path aotJarCache = train(java25, aotJar, aotJar.resolve("app.aot"));
        put("startup.jdk25.aotJar.aotCacheMb", Files.size(aotJarCache) / (1024 * 1024));
        startupWay(redisUrl, "jdk25.lean+aot (aot-jar)", java25, aotJar, LEAN + " -XX:AOTCache=" + aotJarCache);
    }

    /** The AOT cache of the manager in {@code app}, recorded by the image's training script on a Redis of its own. */
    static Path train(String java, Path app, Path cache) throws Exception {
        RedisServer redis = RedisServer.ephemeral();
        try {
            ProcessBuilder pb = new ProcessBuilder("bash", "src/main/docker/aot-train.sh", app.toString(), cache.toString())
                    .inheritIO();
            pb.environment().putAll(Map.of("JAVA", java, "JAVA_OPTS", LEAN, "REDIS_URL", redis.url(),
                    "TRAIN_PORT", Integer.toString(RedisServer.freePort())));
            if (pb.start().waitFor() != 0) {
                throw new IllegalStateException("src/main/docker/aot-train.sh failed for " + app);
            }
            return cache;
        } finally {
            redis.stop();
        }
    }

    static void startupWay(String redisUrl, String label, String java, Path app, String options) throws Exception {
        List<Double> ready = new ArrayList<>();
        List<Double> rss = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Manager m = launch(java, redisUrl, "bench-startup", app, (QUIET + " " + options).trim().split(" "));
            ready.add(m.readyMs());
            rss.add(rssKb(m.process().pid()) / 1024.0);
            stop(m);
        }
        put("startup." + label + ".readyMs", p(ready, 50));
        put("startup." + label + ".rssMb", p(rss, 50));
    }

    static Path jdk25() {
        String env = System.getenv("JAVA25_HOME");
        if (env != null && Files.isExecutable(Path.of(env, "bin", "java"))) {
            return Path.of(env);
        }
        try (var dirs = Files.list(Path.of("/usr/lib/jvm"))) {
            return dirs.filter(d -> d.getFileName().toString().matches("temurin-2[5-9].*|.*-2[5-9]-.*"))
                    .filter(d -> Files.isExecutable(d.resolve("bin").resolve("java"))).sorted().findFirst().orElse(null);
        } catch (Exception e) {
            return null;
        }
    }

    // ---- plumbing

    static Manager manager(String redisUrl, String name, String... options) throws Exception {
        return manager(redisUrl, name, Path.of("."), options);
    }

    /**
     * The manager as its image runs it ({@link #LEAN}). With C2, the manager's JIT compiles took a
     * tenth of the 2 cores during a burst, 2.4 ms of CPU per submitted job against 0.8 with C1.
     */
    static Manager manager(String redisUrl, String name, Path dir, String... options) throws Exception {
        List<String> all = new ArrayList<>(List.of(LEAN.split(" ")));
        all.addAll(List.of(options));
        return launch(Path.of(System.getProperty("java.home"), "bin", "java").toString(), redisUrl, name, dir,
                all.toArray(new String[0]));
    }

    /**
     * The packaged manager on the JVM {@code java}, ready: the one in {@code dir} when it holds one
     * (started from there), else target/quarkus-app's, started from {@code dir}.
     */
    static Manager launch(String java, String redisUrl, String name, Path dir, String... options) throws Exception {
        int port = RedisServer.freePort();
        Path app = Files.exists(dir.resolve("quarkus-run.jar")) ? dir.toAbsolutePath() : Path.of("target", "quarkus-app").toAbsolutePath();
        List<String> cmd = new ArrayList<>(List.of(java,
                "-Dquarkus.redis.hosts=" + redisUrl, "-Dquarkus.http.port=" + port,
                "-Dwarmpool.runtime.local.state-dir=" + Path.of("target", "bench").toAbsolutePath(),
                "-Dwarmpool.runtime.local.agent-jar=" + Path.of("target", "warmpool-agent.jar").toAbsolutePath(),
                "-Dwarmpool.auth.tokens-file=" + tokensFile()));
        cmd.addAll(List.of(options));
        cmd.addAll(List.of("-jar", dir.toAbsolutePath().normalize().equals(app) ? "quarkus-run.jar" : app.resolve("quarkus-run.jar").toString()));
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(Path.of("target", name + ".log").toAbsolutePath().toFile()).start();
        Manager m = new Manager(p, "http://127.0.0.1:" + port, 0);
        await(() -> status(m, "/q/health/ready") == 200, 2);
        return new Manager(p, m.base(), (System.nanoTime() - t0) / 1e6);
    }

    static Path tokensFile() throws java.io.IOException {
        Path f = Path.of("target", "bench", "tokens").toAbsolutePath();
        Files.createDirectories(f.getParent());
        Files.writeString(f, dev.warmpool.auth.TokenFile.line("bench", "admin", TOKEN) + "\n");
        return f;
    }

    static void stop(Manager m) throws InterruptedException {
        m.process().destroy();
        m.process().waitFor();
    }

    static void put(String key, Object value) {
        RESULTS.put(key, value);
    }

    static void report() throws Exception {
        StringBuilder json = new StringBuilder("{\n");
        int i = 0;
        for (Map.Entry<String, Object> e : RESULTS.entrySet()) {
            Object v = e.getValue();
            String value = v instanceof Number || v instanceof Map ? String.valueOf(v).replace("=", "\": ").replace("{", "{\"").replace(", ", ", \"") : "\"" + v + "\"";
            json.append("  \"").append(e.getKey()).append("\": ").append(value).append(++i < RESULTS.size() ? ",\n" : "\n");
        }
        Files.writeString(Path.of("target", "bench.json"), json.append("}\n").toString());
        if (RESULTS.containsKey("sweep.persistent.wallSeconds")) {
            System.out.printf("sweep of %s trials (%s s setup, %s s work), parallelism 4:%n", RESULTS.get("sweep.trials"),
                    RESULTS.get("sweep.setupSeconds"), RESULTS.get("sweep.workSeconds"));
            System.out.printf("%-34s %10s %10s %10s%n", "", "fresh", "warm", "persistent");
            System.out.printf("%-34s %10.2f %10.2f %10.2f%n", "wall seconds", RESULTS.get("sweep.fresh.wallSeconds"),
                    RESULTS.get("sweep.warm.wallSeconds"), RESULTS.get("sweep.persistent.wallSeconds"));
            System.out.printf("%-34s %10.1f %10.1f %10.1f%n%n", "x persistent", RESULTS.get("sweep.freshVsPersistent"),
                    RESULTS.get("sweep.warmVsPersistent"), 1.0);
        }
        if (RESULTS.keySet().stream().anyMatch(k -> k.startsWith("startup."))) {
            System.out.printf("%-34s %10s %10s%n", "manager launch -> ready (median of 3)", "ready ms", "RSS MB");
            RESULTS.forEach((k, v) -> {
                if (k.startsWith("startup.") && k.endsWith(".readyMs")) {
                    String way = k.substring("startup.".length(), k.length() - ".readyMs".length());
                    System.out.printf("%-34s %10.0f %10.0f%n", way, (double) v, (double) RESULTS.get("startup." + way + ".rssMb"));
                }
            });
            System.out.printf("(lean: %s)%n%n", LEAN);
        }
        if (RESULTS.containsKey("warm.submitToRunning.p50")) {
            System.out.printf("%-34s %10s %10s %10s%n", "submit -> (ms)", "warm", "cold", "cold/warm");
            for (String f : List.of("submitToRunning.p50", "submitToRunning.p99", "submitToFinished.p50", "submitToFinished.p99",
                    "clientSubmitToFinished.p50", "clientSubmitToFinished.p99")) {
                double w = (double) RESULTS.get("warm." + f), c = (double) RESULTS.get("cold." + f);
                System.out.printf("%-34s %10.1f %10.1f %10.0f%n", f, w, c, c / Math.max(w, 0.5));
            }
            System.out.println();
        }
        if (RESULTS.containsKey("burst.noop.jobs")) {
            System.out.printf("%-34s %10s %10s %10s%n", "burst on 4 processors", "true", "true, x100", "no-op");
            for (String f : List.of("jobs", "jobsPerSecond", "queueWait.p50", "queueWait.p99", "cpuMsPerJob.manager",
                    "cpuMsPerJob.agents", "cpuMsPerJob.jobProcesses", "cpuMsPerJob.redis", "cpuMsPerJob.client")) {
                System.out.printf("%-34s %10.1f %10.1f %10.1f%n", f, ((Number) RESULTS.get("burst.true." + f)).doubleValue(),
                        ((Number) RESULTS.get("burst.trueBatch." + f)).doubleValue(), ((Number) RESULTS.get("burst.noop." + f)).doubleValue());
            }
            System.out.println("(x100: the same jobs in batches of 100, POST /jobs/batch)");
            if (RESULTS.containsKey("spawnCeiling.4spawners.perSecond")) {
                System.out.printf("%-34s %10s %10s %10s%n", "`true` spawned/s, no warmpool", "1 thread", "2 threads", "4 threads");
                System.out.printf("%-34s %10.0f %10.0f %10.0f%n", "(the machine's ceiling)", RESULTS.get("spawnCeiling.1spawners.perSecond"),
                        RESULTS.get("spawnCeiling.2spawners.perSecond"), RESULTS.get("spawnCeiling.4spawners.perSecond"));
            }
            System.out.println();
        }
        RESULTS.forEach((k, v) -> {
            if (!k.startsWith("warm.") && !k.startsWith("cold.") && !k.startsWith("burst.") && !k.startsWith("sweep.")
                    && !(k.startsWith("startup.") && (k.endsWith("readyMs") || k.endsWith("rssMb")))
                    && !k.equals("redis.commandstats")) {
                System.out.printf("%-44s %s%n", k, v instanceof Double d ? String.format("%.2f", d) : v);
            }
        });
        if (RESULTS.containsKey("redis.commandstats")) {
            System.out.println("redis.commandstats (burst of true)          " + RESULTS.get("redis.commandstats"));
        }
        System.out.println("(all figures also in target/bench.json)");
    }

    static Map<String, Long> commandStats(Jedis j) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (String line : j.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String name = line.substring(8, line.indexOf(':'));
                String calls = line.substring(line.indexOf("calls=") + 6, line.indexOf(',', line.indexOf("calls=")));
                out.put(name, Long.parseLong(calls));
            }
        }
        return out;
    }

    static long usedMemory(Jedis j) {
        for (String line : j.info("memory").split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring(12).trim());
            }
        }
        return -1;
    }

    static double p(List<Double> xs, int pct) {
        if (xs.isEmpty()) {
            return Double.NaN;
        }
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(Math.min(s.size() - 1, (int) Math.ceil(pct / 100.0 * s.size()) - 1));
    }

    static String field(String json, String name) {
        var m = java.util.regex.Pattern.compile("\"" + name + "\":\"([^\"]*)\"").matcher(json);
        if (!m.find()) {
            throw new IllegalStateException("no " + name + " in " + json);
        }
        return m.group(1);
    }

    static double millis(String json, String name) {
        return Instant.parse(field(json, name)).toEpochMilli();
    }

    /**
     * A lean HTTP/1.1 client for the burst: a few keep-alive connections, each with a window of
     * requests in flight (pipelined), the same request bytes every time. The JDK's HttpClient
     * spends 2-3 ms of CPU per request here, and the client shares the two cores with what it
     * measures.
     */
    static final class Pipelined {
        static List<String> post(String base, String path, String body, int n, int connections, int window) throws Exception {
            return post(base, path, body, n, connections, window, r -> field(r, "id"));
        }

        /** {@code n} POSTs of {@code body}; {@code take} gets what is wanted from each 202's body. */
        static List<String> post(String base, String path, String body, int n, int connections, int window,
                java.util.function.Function<String, String> take) throws Exception {
            URI uri = URI.create(base);
            byte[] request = ("POST " + path + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                    + "\r\nAuthorization: Bearer " + TOKEN + "\r\nContent-Type: application/json\r\nContent-Length: " + body.getBytes(java.nio.charset.StandardCharsets.UTF_8).length
                    + "\r\n\r\n" + body).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            List<CompletableFuture<List<String>>> parts = new ArrayList<>();
            for (int c = 0; c < connections; c++) {
                int share = n / connections + (c < n % connections ? 1 : 0);
                parts.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return one(uri, request, share, window, take);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }));
            }
            List<String> ids = new ArrayList<>();
            for (CompletableFuture<List<String>> part : parts) {
                ids.addAll(part.get());
            }
            return ids;
        }

        private static List<String> one(URI uri, byte[] request, int n, int window,
                java.util.function.Function<String, String> take) throws Exception {
            try (java.net.Socket socket = new java.net.Socket(uri.getHost(), uri.getPort())) {
                socket.setTcpNoDelay(true);
                Semaphore slots = new Semaphore(window);
                java.io.OutputStream out = socket.getOutputStream();
                Thread writer = new Thread(() -> {
                    try {
                        for (int i = 0; i < n; i++) {
                            slots.acquire();
                            out.write(request);
                            out.flush();
                        }
                    } catch (Exception e) {
                        // the reader sees the connection end
                    }
                });
                writer.setDaemon(true);
                writer.start();
                java.io.DataInputStream in = new java.io.DataInputStream(new java.io.BufferedInputStream(socket.getInputStream()));
                List<String> ids = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    String status = line(in);
                    int length = -1;
                    boolean chunked = false;
                    for (String h = line(in); !h.isEmpty(); h = line(in)) {
                        if (h.regionMatches(true, 0, "content-length:", 0, 15)) {
                            length = Integer.parseInt(h.substring(15).trim());
                        }
                        chunked |= h.regionMatches(true, 0, "transfer-encoding:", 0, 18) && h.toLowerCase().contains("chunked");
                    }
                    java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
                    if (chunked) {
                        for (int size = Integer.parseInt(line(in).split(";")[0].trim(), 16); size > 0;
                                size = Integer.parseInt(line(in).split(";")[0].trim(), 16)) {
                            body.write(in.readNBytes(size));
                            line(in);
                        }
                        line(in);
                    } else if (length >= 0) {
                        body.write(in.readNBytes(length));
                    } else {
                        throw new IllegalStateException("a response without Content-Length or chunks: " + status);
                    }
                    String text = body.toString(java.nio.charset.StandardCharsets.UTF_8);
                    if (!status.contains(" 202 ")) {
                        throw new IllegalStateException(status + " " + text);
                    }
                    ids.add(take.apply(text));
                    slots.release();
                }
                return ids;
            }
        }

        private static String line(java.io.DataInputStream in) throws java.io.IOException {
            StringBuilder b = new StringBuilder();
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c < 0) {
                    throw new java.io.EOFException("the manager closed the connection");
                }
                if (c != '\r') {
                    b.append((char) c);
                }
            }
            return b.toString();
        }
    }

    static HttpRequest request(Manager m, String method, String path, String body) {
        return HttpRequest.newBuilder(URI.create(m.base() + path)).timeout(Duration.ofSeconds(120))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + TOKEN)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)).build();
    }

    static String send(Manager m, String method, String path, String body) throws Exception {
        return send(m, method, path, body, Map.of());
    }

    static String send(Manager m, String method, String path, String body, Map<String, String> headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(m.base() + path)).timeout(Duration.ofSeconds(120))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + TOKEN)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(b::header);
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() >= 300) {
            throw new IllegalStateException(method + " " + path + ": " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    static boolean contains(Manager m, String path, String text) {
        try {
            return send(m, "GET", path, null).contains(text);
        } catch (Exception e) {
            return false;
        }
    }

    static int status(Manager m, String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(m.base() + path)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    static void await(BooleanSupplier condition) throws InterruptedException {
        await(condition, 20);
    }

    /** Polls (every {@code everyMs}) until the condition holds or 10 minutes pass; the bench's own wait. */
    static void await(BooleanSupplier condition, long everyMs) throws InterruptedException {
        long deadline = System.nanoTime() + 600_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out");
            }
            Thread.sleep(everyMs);
        }
    }

    static long rssKb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (Exception e) {
            return 0;
        }
        return 0;
    }

    /** CPU time of a process (or of its reaped children), in milliseconds, from /proc/PID/stat. */
    static long cpuMs(long pid, boolean children) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // after the name: state is field 3, utime 14, stime 15, cutime 16, cstime 17 (1-based)
            int u = children ? 13 : 11;
            return (Long.parseLong(f[u]) + Long.parseLong(f[u + 1])) * 10; // clock ticks of 10 ms
        } catch (Exception e) {
            return 0;
        }
    }

    static String redisUrl(Jedis j) {
        return "redis://127.0.0.1:" + j.configGet("port").get("port");
    }

    static List<Long> agentPids(String redisUrl) {
        List<Long> pids = new ArrayList<>();
        ProcessHandle.allProcesses().forEach(h -> {
            try {
                String cmd = Files.readString(Path.of("/proc", Long.toString(h.pid()), "cmdline"));
                if (cmd.contains("-Dwarmpool.redis=" + redisUrl + "\0")) {
                    pids.add(h.pid());
                }
            } catch (Exception e) {
                // gone, or not ours to read
            }
        });
        return pids;
    }

    static void killAgents(String redisUrl) {
        // politely first (an agent deregisters, and a flight recording in it is written), then for good
        List<ProcessHandle> agents = agentPids(redisUrl).stream().flatMap(pid -> ProcessHandle.of(pid).stream()).toList();
        agents.forEach(ProcessHandle::destroy);
        for (ProcessHandle a : agents) {
            try {
                a.onExit().get(5, java.util.concurrent.TimeUnit.SECONDS);
            } catch (Exception e) {
                a.destroyForcibly();
            }
        }
    }
}
