package dev.warmpool.bench;

import static dev.warmpool.bench.Figures.put;
import static dev.warmpool.bench.Harness.millis;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a scikit-learn sweep's time goes (bench/run --containers): each trial split into its fit
 * (and score, timed by the trial itself) and the rest; for persistent workers, each processor's
 * trials one after another by the server's clocks (startedAt, finishedAt: a trial's time is from
 * the finish that handed it over to its own finish, so the rest is warmpool's dispatch, the
 * worker's read of its request and write of its answer, and the recording of the result), the
 * gaps between them, and the sweep's head (created -> first trial running) and tail (the first
 * processor out of trials -> the sweep's end).
 */
final class SweepTimeline {
    private SweepTimeline() {}

    static void persistent(JsonNode sweep, List<JsonNode> jobs) {
        List<Double> trial = new ArrayList<>(), fit = new ArrayList<>(), rest = new ArrayList<>();
        Map<String, List<JsonNode>> byProcessor = new TreeMap<>();
        for (JsonNode job : jobs) {
            double d = millis(job, "finishedAt") - millis(job, "startedAt");
            double f = job.path("result").path("metrics").path("fitMs").asDouble();
            trial.add(d);
            fit.add(f);
            rest.add(d - f);
            byProcessor
                    .computeIfAbsent(job.path("processor").asText(), k -> new ArrayList<>())
                    .add(job);
        }
        double created = millis(sweep, "createdAt");
        double end = millis(sweep, "finishedAt");
        double firstStart = Double.MAX_VALUE, firstOut = Double.MAX_VALUE;
        StringBuilder lanes = new StringBuilder();
        for (Map.Entry<String, List<JsonNode>> e : byProcessor.entrySet()) {
            List<JsonNode> lane = e.getValue();
            lane.sort(Comparator.comparingDouble(j -> millis(j, "startedAt")));
            double busy = 0, gaps = 0;
            for (int i = 0; i < lane.size(); i++) {
                busy += millis(lane.get(i), "finishedAt") - millis(lane.get(i), "startedAt");
                if (i > 0) {
                    gaps += millis(lane.get(i), "startedAt") - millis(lane.get(i - 1), "finishedAt");
                }
            }
            firstStart = Math.min(firstStart, millis(lane.get(0), "startedAt"));
            firstOut = Math.min(firstOut, millis(lane.get(lane.size() - 1), "finishedAt"));
            lanes.append(String.format(
                    " %s: %d trials, busy %.2f s, gaps %.0f ms;", e.getKey(), lane.size(), busy / 1000, gaps));
        }
        String p = "containers.sweep.persistent.";
        put(p + "trialMs.p50", Figures.p(trial, 50));
        put(p + "trialMs.mean", mean(trial));
        put(p + "fitMs.p50", Figures.p(fit, 50));
        put(p + "fitMs.mean", mean(fit));
        put(p + "restMs.p50", Figures.p(rest, 50));
        put(p + "restMs.mean", mean(rest));
        put(p + "headMs", firstStart - created);
        put(p + "tailMs", end - firstOut);
        put(p + "serverSeconds", (end - created) / 1000);
        System.out.printf(
                "persistent, per trial (ms) p50 / mean: whole %.0f / %.1f, fit+score %.0f / %.1f, the rest %.0f / %.1f%n",
                Figures.p(trial, 50), mean(trial), Figures.p(fit, 50), mean(fit), Figures.p(rest, 50), mean(rest));
        System.out.printf(
                "persistent sweep: created -> first trial running %.0f ms; created -> ended %.2f s; first processor out of"
                        + " trials -> ended %.0f ms;%s%n",
                firstStart - created, (end - created) / 1000, end - firstOut, lanes);
        System.out.printf(
                "CPU during the persistent sweep (ms) by role %s; the machine's busy CPU %d ms%n",
                Figures.ALL.get(p + "cpuMs"), ((Number) Figures.ALL.get(p + "machineBusyMs")).longValue());
    }

    static void fresh(List<Double> trial, List<Double> fit, int parallelism) {
        String p = "containers.sweep.fresh.";
        put(p + "trialMs.mean", mean(trial));
        put(p + "fitMs.p50", Figures.p(fit, 50));
        put(p + "fitMs.mean", mean(fit));
        System.out.printf(
                "docker run, per trial (ms) p50 / mean: whole %.0f / %.1f, fit+score %.0f / %.1f; all fits / %d = %.2f s%n",
                Figures.p(trial, 50),
                mean(trial),
                Figures.p(fit, 50),
                mean(fit),
                parallelism,
                mean(fit) * fit.size() / parallelism / 1000);
    }

    static double mean(List<Double> xs) {
        return xs.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    }
}
