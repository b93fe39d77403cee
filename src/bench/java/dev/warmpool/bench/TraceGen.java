package dev.warmpool.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A day of ML job arrivals in the Azure Functions 2019 trace format (one row per job type:
 * {@code HashOwner,HashApp,HashFunction,Trigger,1..1440}, invocations per minute), made of the
 * kinds of demand a warm pool meets: timers (every 5 min to every 6 h, some firing several jobs
 * at once, a nightly evaluation of eight), notebook sessions in office hours (a job every minute
 * or two, now and then a sweep of eight at once, then nothing for hours), steady streams, office
 * hours streams and rare types. Seeded: the same seed gives the same day.
 */
final class TraceGen {
    private TraceGen() {}

    record Row(String owner, String app, String function, String trigger, int[] perMinute) {}

    static List<Row> day(long seed) {
        Random r = new Random(seed);
        List<Row> rows = new ArrayList<>();
        int[][] timers = {{5, 1}, {15, 1}, {30, 1}, {60, 1}, {60, 3}, {120, 1}, {360, 2}};
        for (int[] t : timers) {
            int[] m = new int[1440];
            int offset = r.nextInt(t[0]);
            for (int i = offset; i < 1440; i += t[0]) {
                m[i] += t[1];
            }
            rows.add(row("timer-" + t[0] + "m-x" + t[1], "timer", m));
        }
        int[] nightly = new int[1440];
        nightly[120] = 8; // 02:00: eight evaluations at once
        rows.add(row("nightly-eval-x8", "timer", nightly));
        for (int u = 0; u < 10; u++) {
            int[] m = new int[1440];
            int sessions = 1 + r.nextInt(3);
            double meanGap = 0.5 + r.nextDouble() * 3.5; // minutes
            for (int s = 0; s < sessions; s++) {
                int start = 9 * 60 + r.nextInt(8 * 60);
                int length = 20 + r.nextInt(70);
                for (double t = start;
                        t < Math.min(1440, start + length);
                        t += -Math.log(1 - r.nextDouble()) * meanGap) {
                    m[(int) t] += r.nextDouble() < 0.08 ? 8 : 1; // now and then a sweep of eight from the notebook
                }
            }
            rows.add(row("notebook-" + u, "http", m));
        }
        double[] steady = {0.3, 1, 4, 10};
        for (double rate : steady) {
            int[] m = new int[1440];
            for (int i = 0; i < 1440; i++) {
                m[i] = poisson(r, rate);
            }
            rows.add(row("stream-" + rate + "pm", "queue", m));
        }
        double[] office = {0.5, 2};
        for (double rate : office) {
            for (int k = 0; k < 2; k++) {
                int[] m = new int[1440];
                for (int i = 9 * 60; i < 17 * 60; i++) {
                    m[i] = poisson(r, i >= 12 * 60 && i < 13 * 60 ? rate / 4 : rate);
                }
                rows.add(row("office-" + rate + "pm-" + k, "http", m));
            }
        }
        for (int k = 0; k < 8; k++) {
            int[] m = new int[1440];
            int n = 1 + r.nextInt(6);
            for (int i = 0; i < n; i++) {
                m[r.nextInt(1440)]++;
            }
            rows.add(row("rare-" + k, "event", m));
        }
        return rows;
    }

    private static Row row(String name, String trigger, int[] perMinute) {
        return new Row("generated", "warmpool-day", name, trigger, perMinute);
    }

    private static int poisson(Random r, double mean) {
        double l = Math.exp(-mean), p = 1;
        int k = 0;
        do {
            k++;
            p *= r.nextDouble();
        } while (p > l);
        return k - 1;
    }

    static void write(List<Row> rows, Path file) throws IOException {
        StringBuilder b = new StringBuilder("HashOwner,HashApp,HashFunction,Trigger");
        for (int i = 1; i <= 1440; i++) {
            b.append(',').append(i);
        }
        b.append('\n');
        for (Row row : rows) {
            b.append(row.owner())
                    .append(',')
                    .append(row.app())
                    .append(',')
                    .append(row.function())
                    .append(',')
                    .append(row.trigger());
            for (int c : row.perMinute()) {
                b.append(',').append(c);
            }
            b.append('\n');
        }
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        Files.writeString(file, b);
    }

    /** A trace file: its rows (a header line first; blank lines skipped). */
    static List<Row> read(Path file) throws IOException {
        List<Row> rows = new ArrayList<>();
        List<String> lines = Files.readAllLines(file);
        if (lines.isEmpty() || !lines.get(0).startsWith("HashOwner")) {
            throw new IllegalArgumentException(
                    file + " is not in the Azure Functions 2019 format: its first line should be "
                            + "HashOwner,HashApp,HashFunction,Trigger,1,...,1440");
        }
        for (int n = 1; n < lines.size(); n++) {
            String line = lines.get(n).trim();
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split(",", -1);
            if (f.length < 5) {
                throw new IllegalArgumentException(
                        file + " line " + (n + 1) + ": expected HashOwner,HashApp,HashFunction,Trigger "
                                + "and then invocations per minute, got " + f.length + " fields");
            }
            int[] m = new int[f.length - 4];
            for (int i = 4; i < f.length; i++) {
                try {
                    m[i - 4] = f[i].isEmpty() ? 0 : Integer.parseInt(f[i].trim());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(file + " line " + (n + 1) + " minute " + (i - 3) + ": '" + f[i]
                            + "' is not a number of invocations");
                }
            }
            rows.add(new Row(f[0], f[1], f[2], f[3], m));
        }
        return rows;
    }
}
