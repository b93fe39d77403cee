package dev.warmpool.protocol.script;

import dev.warmpool.protocol.JobState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * stats.lua: one pool's counts for a scrape of {@code /q/metrics}. The fields it reads of the
 * pool's warmth hash (KeySchema.warmth; written by lib/warmth.lua and end_job) are named here
 * alone and handed to the script as arguments.
 */
public sealed interface StatsReply permits StatsReply.Pool, StatsReply.NoPool {
    /** End states, as end_job counts them ({@code e:<STATE>}). */
    List<String> ENDS = Arrays.stream(JobState.values())
            .filter(JobState::ended)
            .map(Enum::name)
            .toList();

    /**
     * Upper bounds (ms) of the queue-wait and run-time buckets: lib/warmth.lua's TIMING_BOUNDS
     * (a bucket past the last holds the longer ones). PoolScriptContractTests holds the two equal.
     */
    List<Long> BOUNDS_MS = List.of(
            5L, 10L, 25L, 50L, 100L, 250L, 500L, 1000L, 2500L, 5000L, 10000L, 30000L, 60000L, 300000L, 900000L,
            3600000L);

    /** A histogram in the warmth hash: its field prefix ({@code qw:} queue wait, {@code rt:} run time). */
    String QUEUE_WAIT = "qw:";

    String RUN_TIME = "rt:";

    /** ms sweep trials ran, started to end, summed as each ends (lib/ends.lua end_job; each sweep's own: busyMs). */
    String SWEEP_BUSY_MS = "sweepBusyMs";

    List<String> FIELDS = fields();

    private static List<String> fields() {
        List<String> f = new ArrayList<>(List.of("warm", "cold", "idleMs", SWEEP_BUSY_MS));
        ENDS.forEach(e -> f.add("e:" + e));
        for (String h : List.of(QUEUE_WAIT, RUN_TIME)) {
            for (int i = 1; i <= BOUNDS_MS.size() + 1; i++) {
                f.add(h + i);
            }
            f.add(h + "n");
            f.add(h + "ms");
        }
        return List.copyOf(f);
    }

    /** A histogram: per bucket the count (not cumulative; the last past every bound), the count and sum of all. */
    record Histogram(long[] buckets, long count, long sumMs) {}

    record Pool(
            int starting,
            int idle,
            int busy,
            int draining,
            int queued,
            long idleNowMs,
            long warm,
            long cold,
            long idleMs,
            long sweepBusyMs,
            Map<String, Long> ended,
            Histogram queueWait,
            Histogram run)
            implements StatsReply {
        /** Processors by state, in ProcessorState's lower-case names. */
        public Map<String, Integer> processors() {
            Map<String, Integer> m = new LinkedHashMap<>();
            m.put("starting", starting);
            m.put("idle", idle);
            m.put("busy", busy);
            m.put("draining", draining);
            return m;
        }
    }

    record NoPool() implements StatsReply {}

    static List<String> args() {
        return FIELDS;
    }

    static StatsReply decode(Object raw) {
        if ("NOPOOL".equals(Replies.status(raw))) {
            return new NoPool();
        }
        List<Object> v = Replies.list(raw);
        Map<String, Long> read = new LinkedHashMap<>();
        for (int i = 0; i < FIELDS.size(); i++) {
            read.put(FIELDS.get(i), number(v.get(6 + i)));
        }
        Map<String, Long> ended = new LinkedHashMap<>();
        ENDS.forEach(e -> ended.put(e, read.get("e:" + e)));
        return new Pool(
                (int) number(v.get(0)),
                (int) number(v.get(1)),
                (int) number(v.get(2)),
                (int) number(v.get(3)),
                (int) number(v.get(4)),
                number(v.get(5)),
                read.get("warm"),
                read.get("cold"),
                read.get("idleMs"),
                read.get(SWEEP_BUSY_MS),
                ended,
                histogram(read, QUEUE_WAIT),
                histogram(read, RUN_TIME));
    }

    private static Histogram histogram(Map<String, Long> read, String prefix) {
        long[] b = new long[BOUNDS_MS.size() + 1];
        for (int i = 0; i < b.length; i++) {
            b[i] = read.get(prefix + (i + 1));
        }
        return new Histogram(b, read.get(prefix + "n"), read.get(prefix + "ms"));
    }

    private static long number(Object o) {
        String s = Replies.string(o);
        return s == null || s.isEmpty() ? 0L : Long.parseLong(s);
    }
}
