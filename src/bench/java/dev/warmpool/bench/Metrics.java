package dev.warmpool.bench;

import static dev.warmpool.bench.Figures.p;
import static dev.warmpool.bench.Figures.put;
import static dev.warmpool.bench.Harness.await;
import static dev.warmpool.bench.Harness.get;
import static dev.warmpool.bench.Harness.quietManager;
import static dev.warmpool.bench.Harness.send;

import dev.warmpool.ManagerProcess;
import dev.warmpool.policy.Warmth;
import dev.warmpool.protocol.KeySchema;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Stream;
import redis.clients.jedis.Jedis;

/**
 * What looking costs: a {@code /q/metrics} scrape (a fresh read from Redis each time) at 1, 10 and
 * 100 pools of 100 simulated processors; Redis commands per second with 0, 1, 10 and 30 dashboards
 * open, on this build and, given its {@code quarkus-app} folder, on another build side by side;
 * how long a submitted job takes to show on an open dashboard; a learned pool's {@code GET /pools}.
 */
final class Metrics {
    static final int[] POOLS = {1, 10, 100};
    static final int[] PAGES = {0, 1, 10, 30};
    static final int SCRAPES = 20;
    /** PoolMetrics shares a read among scrapes closer than 1 s: the bench waits past it so each scrape reads. */
    static final long FRESH_READ_MS = 1_100;

    static final long WINDOW_MS = 5_000;

    private Metrics() {}

    static void metrics(String redisUrl, Jedis j, Path other) throws Exception {
        j.flushAll();
        ManagerProcess m = quietManager(redisUrl, "bench-metrics", Path.of("."));
        try {
            scrapes(m, j);
            learnedPool(m, j, "this");
            pages(m, j, "this");
            feedLatency(m);
        } finally {
            m.stop();
        }
        if (other != null) {
            ManagerProcess o = quietManager(redisUrl, "bench-metrics", other);
            try {
                learnedPool(o, j, "other");
                pages(o, j, "other");
            } finally {
                o.stop();
            }
        }
        j.flushAll();
        print(other);
    }

    static void scrapes(ManagerProcess m, Jedis j) throws Exception {
        int pools = 0;
        for (int target : POOLS) {
            Footprint.simulatedPools(m, j, "m-", pools, target, 100);
            pools = target;
            List<Double> ms = new ArrayList<>();
            long usec = 0;
            long calls = 0;
            for (int i = 0; i < SCRAPES; i++) {
                long ready = System.nanoTime() + FRESH_READ_MS * 1_000_000;
                await(() -> System.nanoTime() >= ready, 50);
                long[] before = redisWork(j);
                long t0 = System.nanoTime();
                HttpResponse<String> r = ManagerProcess.HTTP.send(
                        m.request("GET", "/q/metrics", null, Map.of()), HttpResponse.BodyHandlers.ofString());
                ms.add((System.nanoTime() - t0) / 1e6);
                long[] after = redisWork(j);
                usec += after[0] - before[0];
                calls += after[1] - before[1] - 2; // less the two INFO calls
                if (!r.body().contains("warmpool_pool_processors{pool=\"m-" + (target - 1) + "\"")) {
                    throw new IllegalStateException("the scrape misses pool m-" + (target - 1));
                }
            }
            String k = "metrics.scrape." + target + "pools";
            put(k + ".ms.p50", p(ms, 50));
            put(k + ".ms.p99", p(ms, 99));
            put(k + ".redisUsPerScrape", (double) usec / SCRAPES);
            put(k + ".redisCallsPerScrape", (double) calls / SCRAPES);
        }
    }

    /** Redis commands per second while {@code n} dashboards are open, each on the live feed. */
    static void pages(ManagerProcess m, Jedis j, String build) throws Exception {
        quiet(j);
        for (int n : PAGES) {
            List<Page> open = new ArrayList<>();
            AtomicLong states = new AtomicLong();
            AtomicLong bytes = new AtomicLong();
            for (int i = 0; i < n; i++) {
                open.add(new Page(m, line -> {
                    if (line.startsWith("event:state")) {
                        states.incrementAndGet();
                    } else if (line.startsWith("data:")) {
                        bytes.set(line.length());
                    }
                }));
            }
            await(() -> states.get() >= n, 20);
            long[] before = redisWork(j);
            long t0 = System.nanoTime();
            await(() -> System.nanoTime() - t0 >= WINDOW_MS * 1_000_000, 100);
            long[] after = redisWork(j);
            double seconds = (System.nanoTime() - t0) / 1e9;
            open.forEach(Page::close);
            put("metrics.pages." + build + "." + n + ".redisCallsPerSecond", (after[1] - before[1] - 2) / seconds);
            put("metrics.pages." + build + "." + n + ".redisMsPerSecond", (after[0] - before[0]) / 1e3 / seconds);
            if (n > 0) {
                put("metrics.pages." + build + ".stateKb", bytes.get() / 1024.0);
            }
        }
    }

    /**
     * {@code GET /pools/{type}} of a learned pool whose 64 demand levels each hold 500 gaps
     * (log-normal, a median of 1 min), as the dashboard's feed and each reconcile pass read it.
     */
    static void learnedPool(ManagerProcess m, Jedis j, String build) throws Exception {
        send(
                m,
                "PUT",
                "/pools/m-learned",
                "{\"command\": [\"true\"], \"minIdle\": 0, \"maxSize\": 64, \"warmth\": \"learned\"}");
        Random gaps = new Random(7);
        Map<String, String> h = new LinkedHashMap<>();
        for (int level = 1; level <= Warmth.LEVELS; level++) {
            for (int i = 0; i < 500; i++) {
                h.merge(
                        "h:" + level + ":" + Warmth.bin((long) Math.exp(gaps.nextGaussian() * 2 + 11)),
                        "1",
                        (a, b) -> Long.toString(Long.parseLong(a) + 1));
            }
        }
        j.hset(KeySchema.warmth("m-learned"), h);
        List<Double> ms = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            long t0 = System.nanoTime();
            if (get(m, "/pools/m-learned").path("warmth").path("levels").size() != Warmth.LEVELS) {
                throw new IllegalStateException("the learned pool shows no 64 levels");
            }
            ms.add((System.nanoTime() - t0) / 1e6);
        }
        put("metrics.learnedPool." + build + ".getMs.p50", p(ms, 50));
        put("metrics.learnedPool." + build + ".getMs.p99", p(ms, 99));
    }

    /** Waits for a second in which Redis served fewer than 50 calls: the manager's start-up work is done. */
    static void quiet(Jedis j) {
        long[] last = {redisWork(j)[1], System.nanoTime()};
        await(
                () -> {
                    if (System.nanoTime() - last[1] < 1_000_000_000L) {
                        return false;
                    }
                    long calls = redisWork(j)[1];
                    boolean quiet = calls - last[0] < 50;
                    last[0] = calls;
                    last[1] = System.nanoTime();
                    return quiet;
                },
                100);
    }

    /** Submit to the first feed event that shows the job, with ten pages open. */
    static void feedLatency(ManagerProcess m) throws Exception {
        send(m, "PUT", "/pools/m-feed", "{\"command\": [\"true\"], \"minIdle\": 0, \"maxSize\": 1}");
        Map<String, Long> seen = new ConcurrentHashMap<>();
        List<Page> open = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            open.add(new Page(m, line -> {
                int at = line.indexOf("m-feed.");
                while (at >= 0) {
                    int end = line.indexOf('"', at);
                    seen.putIfAbsent(line.substring(at, end), System.nanoTime());
                    at = line.indexOf("m-feed.", end);
                }
            }));
        }
        List<Double> ms = new ArrayList<>();
        Random phase = new Random(1);
        for (int i = 0; i < 20; i++) {
            // at a random point of the feed's second, not just after the read that showed the previous job
            long at = System.nanoTime() + phase.nextInt(1000) * 1_000_000L;
            await(() -> System.nanoTime() >= at, 5);
            long t0 = System.nanoTime();
            String id = Harness.id(send(m, "POST", "/jobs", "{\"type\": \"m-feed\"}"));
            await(() -> seen.containsKey(id), 5);
            ms.add((seen.get(id) - t0) / 1e6);
        }
        open.forEach(Page::close);
        put("metrics.feed.submitToShown.p50", p(ms, 50));
        put("metrics.feed.submitToShown.p99", p(ms, 99));
    }

    /** An open page: the live feed's lines to {@code onLine} on a thread of its own until {@link Page#close}. */
    static final class Page implements AutoCloseable {
        private final CompletableFuture<Stream<String>> lines;

        Page(ManagerProcess m, Consumer<String> onLine) {
            lines = ManagerProcess.HTTP
                    .sendAsync(
                            m.request("GET", "/ui/events", null, Map.of("Accept", "text/event-stream")),
                            HttpResponse.BodyHandlers.ofLines())
                    .thenApply(HttpResponse::body);
            lines.thenAcceptAsync(l -> {
                try {
                    l.forEach(onLine);
                } catch (RuntimeException closed) {
                    // the page was closed
                }
            });
        }

        /** Closing the lines closes the connection: the manager sees the page go. */
        @Override
        public void close() {
            lines.thenAccept(Stream::close);
        }
    }

    /** Redis's own time in commands (µs) and its command count so far. */
    static long[] redisWork(Jedis j) {
        long usec = 0;
        long calls = 0;
        for (String line : j.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                calls += field(line, "calls=");
                usec += field(line, "usec=");
            }
        }
        return new long[] {usec, calls};
    }

    private static long field(String line, String name) {
        int at = line.indexOf(name) + name.length();
        int end = line.indexOf(',', at);
        return Long.parseLong(line.substring(at, end < 0 ? line.length() : end));
    }

    static void print(Path other) {
        System.out.printf(
                "%-34s %10s %10s %12s %12s%n",
                "/q/metrics, a fresh read", "ms p50", "ms p99", "Redis us", "Redis calls");
        for (int n : POOLS) {
            String k = "metrics.scrape." + n + "pools";
            System.out.printf(
                    "%-34s %10.1f %10.1f %12.0f %12.1f%n",
                    n + " pools x 100 processors",
                    Figures.number(k + ".ms.p50"),
                    Figures.number(k + ".ms.p99"),
                    Figures.number(k + ".redisUsPerScrape"),
                    Figures.number(k + ".redisCallsPerScrape"));
        }
        System.out.println();
        Map<String, String> builds = new LinkedHashMap<>();
        builds.put("this", "this build");
        if (other != null) {
            builds.put("other", other.toString());
        }
        System.out.printf("%-34s", "dashboards open (100 pools)");
        builds.values()
                .forEach(b -> System.out.printf(" %24s", b.length() > 24 ? "..." + b.substring(b.length() - 21) : b));
        System.out.printf("%n%-34s", "");
        builds.values().forEach(b -> System.out.printf(" %12s %11s", "Redis calls/s", "Redis ms/s"));
        System.out.println();
        for (int n : PAGES) {
            System.out.printf("%-34s", n + " pages");
            builds.keySet()
                    .forEach(b -> System.out.printf(
                            " %12.0f %11.1f",
                            Figures.number("metrics.pages." + b + "." + n + ".redisCallsPerSecond"),
                            Figures.number("metrics.pages." + b + "." + n + ".redisMsPerSecond")));
            System.out.println();
        }
        System.out.printf("%-34s", "one state sent to a page, KB");
        builds.keySet()
                .forEach(b -> System.out.printf(" %12.0f %11s", Figures.number("metrics.pages." + b + ".stateKb"), ""));
        System.out.println();
        System.out.printf("%n%-34s", "GET /pools of a learned pool, 64 levels");
        builds.keySet()
                .forEach(b -> System.out.printf(
                        " %11.1f %12s", Figures.number("metrics.learnedPool." + b + ".getMs.p50"), "ms p50"));
        System.out.printf("%n%-34s", "");
        builds.keySet()
                .forEach(b -> System.out.printf(
                        " %11.1f %12s", Figures.number("metrics.learnedPool." + b + ".getMs.p99"), "ms p99"));
        System.out.println();
        System.out.printf(
                "%nsubmit -> shown on 10 open pages: p50 %.0f ms, p99 %.0f ms (the feed reads once a second)%n%n",
                Figures.number("metrics.feed.submitToShown.p50"), Figures.number("metrics.feed.submitToShown.p99"));
    }
}
