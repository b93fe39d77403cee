package dev.warmpool.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.warmpool.policy.SizingPolicy;
import dev.warmpool.policy.Warmth;
import dev.warmpool.policy.WarmthRecorder;
import dev.warmpool.pool.PoolSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Replays a day of arrivals (Azure Functions 2019 trace format, {@link TraceGen}) in simulated
 * time through the production {@link SizingPolicy} (and {@link Warmth}, fed by its Java
 * {@link WarmthRecorder} as the scripts feed Redis), once per policy: fixed keep-alives from
 * 1 to 60 minutes, and the learned one. Each function is a pool (minIdle 0); a job that finds no
 * idle processor queues, which starts one (a pass runs at once, as a submit's nudge does, and
 * every 5 s); a processor takes {@code --start-seconds} to start, a job runs
 * {@code --job-seconds}. Writes {"policies": {...}} with, per policy, invocations, coldStarts
 * (jobs that found no warm processor), warmStarts, idleProcessorSeconds and the queue wait p50
 * and p99; prints a table; draws cold starts against idle processor-seconds (PNG).
 *
 * <pre>
 * bench/replay --trace FILE [--job-seconds S] [--start-seconds S] [--out FILE.json] [--plot FILE.png] [--limit N] [--price P]
 * bench/replay --generate FILE [--seed N]      a generated day, to replay or to read
 * </pre>
 */
public final class Replay {
    static final long PASS_MS = 5_000;
    static final long NUDGE_MS = 50;
    static final int[] FIXED_MINUTES = {1, 2, 5, 10, 15, 20, 30, 45, 60};
    /** The learned pools' fixed keep-alive: the price of a cold start, and the fallback while a level is not learned yet. */
    static final int LEARNED_PRICE_MINUTES = 10;
    /** A cold start's price, as a multiple of the learned pools' fixed keep-alive (--price). */
    static volatile double price = Warmth.Params.DEFAULT.coldStartPrice();

    private Replay() {}

    /** One policy's day over all functions. */
    record Result(
            long invocations,
            long coldStarts,
            long warmStarts,
            double idleProcessorSeconds,
            double queueWaitP50,
            double queueWaitP99,
            long processorStarts) {}

    public static void main(String[] args) throws Exception {
        Map<String, String> a = options(args);
        if (a.containsKey("generate")) {
            Path out = Path.of(a.get("generate"));
            TraceGen.write(TraceGen.day(Long.parseLong(a.getOrDefault("seed", "1"))), out);
            System.out.println("wrote a generated day to " + out);
            return;
        }
        if (!a.containsKey("trace")) {
            throw new IllegalArgumentException("usage: bench/replay --trace FILE [--job-seconds S] [--start-seconds S] "
                    + "[--out FILE.json] [--plot FILE.png] [--limit N] | --generate FILE [--seed N]");
        }
        List<TraceGen.Row> rows = TraceGen.read(Path.of(a.get("trace")));
        if (a.containsKey("limit")) {
            rows = rows.subList(0, Math.min(rows.size(), Integer.parseInt(a.get("limit"))));
        }
        price = Double.parseDouble(a.getOrDefault("price", Double.toString(Warmth.Params.DEFAULT.coldStartPrice())));
        long jobMs = (long) (Double.parseDouble(a.getOrDefault("job-seconds", "5")) * 1000);
        long startMs = (long) (Double.parseDouble(a.getOrDefault("start-seconds", "5")) * 1000);
        Map<String, Result> results = replay(rows, jobMs, startMs);
        print(results);
        Map<String, Map<String, Result>> byTrigger = byTrigger(rows, jobMs, startMs);
        System.out.println();
        System.out.printf(
                "%-8s %10s %12s %12s %14s %14s%n",
                "trigger", "jobs", "cold 10m", "cold learned", "idle-s 10m", "idle-s learned");
        byTrigger.forEach((t, two) -> System.out.printf(
                "%-8s %10d %12d %12d %14.0f %14.0f%n",
                t,
                two.get("learned").invocations(),
                two.get("fixed-10m").coldStarts(),
                two.get("learned").coldStarts(),
                two.get("fixed-10m").idleProcessorSeconds(),
                two.get("learned").idleProcessorSeconds()));
        Path out = Path.of(a.getOrDefault("out", "target/replay.json"));
        write(results, byTrigger, rows.size(), jobMs, startMs, out);
        Path plot = Path.of(a.getOrDefault("plot", out.toString().replaceAll("\\.json$", "") + ".png"));
        ReplayPlot.draw(results, plot);
        System.out.println("wrote " + out + " and " + plot);
    }

    static Map<String, String> options(String[] args) {
        Map<String, String> a = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got '" + args[i] + "'");
            }
            a.put(args[i].substring(2), args[++i]);
        }
        return a;
    }

    /** Every policy over every row, side by side. */
    static Map<String, Result> replay(List<TraceGen.Row> rows, long jobMs, long startMs) {
        Map<String, Result> out = new LinkedHashMap<>();
        for (int minutes : FIXED_MINUTES) {
            out.put("fixed-" + minutes + "m", result(pools(rows, spec(minutes, PoolSpec.FIXED), jobMs, startMs)));
        }
        out.put("learned", result(pools(rows, spec(LEARNED_PRICE_MINUTES, PoolSpec.LEARNED), jobMs, startMs)));
        return out;
    }

    /** fixed-10m and learned, by the rows' trigger (a generated day: timer, http for notebooks and office hours, queue for streams, event for rare types). */
    static Map<String, Map<String, Result>> byTrigger(List<TraceGen.Row> rows, long jobMs, long startMs) {
        Map<String, Map<String, Result>> out = new TreeMap<>();
        for (String trigger :
                rows.stream().map(TraceGen.Row::trigger).distinct().sorted().toList()) {
            List<TraceGen.Row> some =
                    rows.stream().filter(r -> r.trigger().equals(trigger)).toList();
            Map<String, Result> two = new LinkedHashMap<>();
            two.put("fixed-10m", result(pools(some, spec(10, PoolSpec.FIXED), jobMs, startMs)));
            two.put("learned", result(pools(some, spec(LEARNED_PRICE_MINUTES, PoolSpec.LEARNED), jobMs, startMs)));
            out.put(trigger, two);
        }
        return out;
    }

    static PoolSpec spec(int keepAliveMinutes, String warmth) {
        return PoolSpec.builder()
                .command(List.of("true"))
                .minIdle(0)
                .maxSize(1000)
                .idleTimeoutSeconds(keepAliveMinutes * 60)
                .env(Map.of())
                .maxQueued(1_000_000)
                .worker("process")
                .warmth(warmth)
                .build();
    }

    static List<ReplayPool> pools(List<TraceGen.Row> rows, PoolSpec spec, long jobMs, long startMs) {
        return rows.parallelStream()
                .map(r -> new ReplayPool(r, spec, jobMs, startMs).run())
                .toList();
    }

    static Result result(List<ReplayPool> pools) {
        long inv = 0, cold = 0, warm = 0, starts = 0;
        double idle = 0;
        List<Long> waits = new ArrayList<>();
        for (ReplayPool p : pools) {
            inv += p.arrivals.length;
            cold += p.recorder.history().cold();
            warm += p.recorder.history().warm();
            idle += p.idleMs / 1000.0;
            starts += p.starts;
            for (long w : p.waits) {
                waits.add(w);
            }
        }
        long[] w = waits.stream().mapToLong(Long::longValue).sorted().toArray();
        return new Result(inv, cold, warm, idle, pct(w, 50) / 1000.0, pct(w, 99) / 1000.0, starts);
    }

    static double pct(long[] sorted, int p) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.max(0, Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1))];
    }

    /** Arrival times of a row, ms into the day: a timer's at the minute's start, others spread over the minute (seeded by its name). */
    static long[] arrivals(TraceGen.Row row) {
        Random r = new Random(row.function().hashCode() * 31L + row.app().hashCode());
        boolean timer = row.trigger().equalsIgnoreCase("timer");
        int total = Arrays.stream(row.perMinute()).sum();
        long[] t = new long[total];
        int n = 0;
        for (int m = 0; m < row.perMinute().length; m++) {
            for (int k = 0; k < row.perMinute()[m]; k++) {
                t[n++] = m * 60_000L + (timer ? k * 10L : r.nextInt(60_000));
            }
        }
        Arrays.sort(t);
        return t;
    }

    static void print(Map<String, Result> results) {
        Result anchor = results.get("fixed-10m");
        System.out.printf(
                "%-11s %11s %11s %10s %16s %8s %14s %14s %10s%n",
                "policy",
                "invocations",
                "coldStarts",
                "vs 10m",
                "idle proc-s",
                "vs 10m",
                "wait p50 (s)",
                "wait p99 (s)",
                "starts");
        results.forEach((name, r) -> System.out.printf(
                "%-11s %11d %11d %10.2f %16.0f %8.2f %14.3f %14.3f %10d%n",
                name,
                r.invocations(),
                r.coldStarts(),
                (double) r.coldStarts() / Math.max(1, anchor.coldStarts()),
                r.idleProcessorSeconds(),
                r.idleProcessorSeconds() / Math.max(1e-9, anchor.idleProcessorSeconds()),
                r.queueWaitP50(),
                r.queueWaitP99(),
                r.processorStarts()));
    }

    static void write(
            Map<String, Result> results,
            Map<String, Map<String, Result>> byTrigger,
            int functions,
            long jobMs,
            long startMs,
            Path out)
            throws Exception {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("functions", functions);
        doc.put("jobSeconds", jobMs / 1000.0);
        doc.put("startSeconds", startMs / 1000.0);
        doc.put("policies", results);
        doc.put("byTrigger", byTrigger);
        if (out.getParent() != null) {
            Files.createDirectories(out.getParent());
        }
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.toFile(), doc);
    }
}
