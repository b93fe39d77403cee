package dev.warmpool.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The figures of one run, by name, in the order they were measured (written to target/bench.json). */
final class Figures {
    static final Map<String, Object> ALL = new LinkedHashMap<>();

    private Figures() {}

    static void put(String key, Object value) {
        ALL.put(key, value);
    }

    static double number(String key) {
        return ((Number) ALL.get(key)).doubleValue();
    }

    /** The {@code pct}th percentile (nearest rank); NaN for none. */
    static double p(List<Double> xs, int pct) {
        if (xs.isEmpty()) {
            return Double.NaN;
        }
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(Math.max(0, Math.min(s.size() - 1, (int) Math.ceil(pct / 100.0 * s.size()) - 1)));
    }

    /** The submit-to-running, -finished (server clocks) and client-seen percentiles of a series of jobs, under {@code path}. */
    static void latencies(String path, List<Double> running, List<Double> finished, List<Double> client) {
        put(path + ".jobs", running.size());
        put(path + ".submitToRunning.p50", p(running, 50));
        put(path + ".submitToRunning.p99", p(running, 99));
        put(path + ".submitToFinished.p50", p(finished, 50));
        put(path + ".submitToFinished.p99", p(finished, 99));
        put(path + ".clientSubmitToFinished.p50", p(client, 50));
        put(path + ".clientSubmitToFinished.p99", p(client, 99));
    }
}
