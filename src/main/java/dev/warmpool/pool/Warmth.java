package dev.warmpool.pool;

import java.util.Map;

/**
 * Warmth that learns demand: the learned keep-alive's model, pure, shared by the reconciler
 * ({@link SizingPolicy}) and the replay (bench/replay), and the Java twin of what
 * {@code lua/lib/warmth.lua} records ({@link Recorder}).
 *
 * <p>A pool's demand is its jobs that have not ended. Each demand level is treated as a job type
 * of its own: level {@code k} is "left" when demand falls from {@code k} to {@code k - 1}, and
 * "reached" again when it rises back to {@code k}. The k-th processor of a pool is needed exactly
 * while demand is at least {@code k}; so the gaps between leaving and reaching level {@code k}
 * are that processor's idle gaps, and several jobs at once (what causes most cold starts) are
 * learned level by level, not as one window per type. Each level keeps a histogram of its gaps
 * in logarithmic bins (10 % wide, 100 ms to about 28 h, then one out-of-range bin), so that the
 * two-second gaps of a notebook session and the hour of a timer are told apart alike.
 *
 * <p>The decision, as in the hybrid histogram policy of Shahrad et al. ("Serverless in the
 * Wild", USENIX ATC 2020), per level: once the histogram is representative (enough samples, few
 * out of range) a processor of that level is wanted from the {@code prewarmQuantile} of its gaps
 * (less a margin and the time a processor takes to start) to the {@code keepQuantile} (plus a
 * margin) after the level was left; before that it is given back (and started again ahead of
 * the predicted arrival); otherwise the pool's fixed {@code idleTimeoutSeconds} applies.
 */
public final class Warmth {
    /** Demand levels learned; above it a pool's extra processors are not kept warm by the learned policy. */
    public static final int LEVELS = 64;
    /** The out-of-range bin: gaps past about 28 h. Bins 0..BINS-1 are in range. */
    public static final int BINS = 146;
    /** A level's counts are halved when its samples reach this (as warmth.lua does): recent demand weighs more. */
    public static final int HALVE = 4000;

    private Warmth() {
    }

    /** The bin of a gap, as warmth.lua's gap_bin computes it. */
    public static int bin(long gapMs) {
        if (gapMs < 100) {
            return 0;
        }
        return (int) Math.min(BINS, Math.floor(Math.log(gapMs / 100.0) / Math.log(1.1)) + 1);
    }

    /** The shortest gap that bin {@code b} holds. */
    public static long lowerMs(int b) {
        return b <= 0 ? 0 : (long) Math.floor(100 * Math.pow(1.1, b - 1));
    }

    /** The end of bin {@code b}: the shortest gap the next bin holds. */
    public static long upperMs(int b) {
        return b >= BINS ? Long.MAX_VALUE : (long) Math.ceil(100 * Math.pow(1.1, b));
    }

    /**
     * How the learned policy reads a histogram: it trusts one with at least {@code minSamples}
     * gaps in range, of which at most {@code maxOutOfRange} (a share of all) are past it; it
     * wants a processor from the {@code prewarmQuantile} of the gaps less {@code margin} (a share)
     * and {@code leadMs} (a processor's start), to the {@code keepQuantile} plus {@code margin}.
     */
    public record Params(int minSamples, double prewarmQuantile, double keepQuantile, double margin, double maxOutOfRange,
            long leadMs) {
        /** The hybrid policy's percentiles and margins (5th less 10 %, 99th plus 10 %), 10 s to start a processor. */
        public static final Params DEFAULT = new Params(5, 0.05, 0.99, 0.10, 0.5, 10_000);

        public Params withLead(long ms) {
            return new Params(minSamples, prewarmQuantile, keepQuantile, margin, maxOutOfRange, ms);
        }
    }

    /**
     * A pool's KeySchema.warmth, decoded: its demand, when each level was last left (0: it was
     * not, or it is in use), each level's gap counts by bin, warm and cold arrivals, and the idle
     * time of processors that stopped idling.
     */
    public record History(int demand, long[] leftAt, long[][] counts, long warm, long cold, long idleMs) {
        public static final History NONE = new History(0, new long[LEVELS + 1], new long[LEVELS + 1][BINS + 1], 0, 0, 0);

        public static History of(Map<String, String> h) {
            if (h == null || h.isEmpty()) {
                return NONE;
            }
            long[] left = new long[LEVELS + 1];
            long[][] counts = new long[LEVELS + 1][BINS + 1];
            h.forEach((k, v) -> {
                if (k.startsWith("b:")) {
                    int level = Integer.parseInt(k.substring(2));
                    if (level >= 1 && level <= LEVELS) {
                        left[level] = Long.parseLong(v);
                    }
                } else if (k.startsWith("h:")) {
                    int colon = k.indexOf(':', 2);
                    int level = Integer.parseInt(k.substring(2, colon));
                    int bin = Integer.parseInt(k.substring(colon + 1));
                    if (level >= 1 && level <= LEVELS && bin >= 0 && bin <= BINS) {
                        counts[level][bin] = Long.parseLong(v);
                    }
                }
            });
            return new History(Math.max(0, (int) number(h, "d")), left, counts, number(h, "warm"), number(h, "cold"),
                    number(h, "idleMs"));
        }

        private static long number(Map<String, String> h, String k) {
            String v = h.get(k);
            return v == null || v.isEmpty() ? 0 : Long.parseLong(v);
        }

        public long samples(int level) {
            long n = 0;
            for (long c : counts[level]) {
                n += c;
            }
            return n;
        }
    }

    /**
     * What the policy chose for one demand level: with a trusted histogram, a processor of this
     * level is wanted from {@code prewarmMs} to {@code keepAliveMs} after the level was left;
     * without one, from 0 to the pool's fixed keep-alive.
     */
    public record Window(int level, long samples, boolean trusted, long prewarmMs, long keepAliveMs) {
        public boolean wants(long sinceLeftMs) {
            return sinceLeftMs >= prewarmMs && sinceLeftMs <= keepAliveMs;
        }
    }

    public static Window window(int level, long[] counts, Params p, long fixedKeepAliveMs) {
        long n = 0;
        for (long c : counts) {
            n += c;
        }
        long inRange = n - counts[BINS];
        if (inRange < p.minSamples() || counts[BINS] > p.maxOutOfRange() * n) {
            return new Window(level, n, false, 0, fixedKeepAliveMs);
        }
        long pre = (long) (lowerMs(quantileBin(counts, inRange, p.prewarmQuantile())) * (1 - p.margin())) - p.leadMs();
        long keep = (long) (upperMs(quantileBin(counts, inRange, p.keepQuantile())) * (1 + p.margin()));
        return new Window(level, n, true, Math.max(0, pre), keep);
    }

    /** The bin holding the {@code q} quantile of the in-range gaps. */
    static int quantileBin(long[] counts, long inRange, double q) {
        long rank = Math.max(1, (long) Math.ceil(q * inRange));
        long seen = 0;
        for (int b = 0; b < BINS; b++) {
            seen += counts[b];
            if (seen >= rank) {
                return b;
            }
        }
        return BINS - 1;
    }

    /**
     * How many idle processors the learned policy wants now above a demand of {@code demand}: the
     * levels from {@code demand + 1} to {@code top} (the pool's size) whose window wants one.
     */
    public static int idleWanted(History h, int demand, int top, long now, long fixedKeepAliveMs, Params p) {
        int wanted = 0;
        for (int level = Math.max(1, demand + 1); level <= Math.min(top, LEVELS); level++) {
            long left = h.leftAt()[level];
            if (left > 0 && window(level, h.counts()[level], p, fixedKeepAliveMs).wants(now - left)) {
                wanted++;
            }
        }
        return wanted;
    }

    /**
     * The Java twin of warmth.lua, for the replay and the tests: the same records of the same
     * events, kept in memory.
     */
    public static final class Recorder {
        private int demand;
        private final long[] leftAt = new long[LEVELS + 1];
        private final long[][] counts = new long[LEVELS + 1][BINS + 1];
        private long warm;
        private long cold;
        private long idleMs;

        /** A job joins the demand; {@code warmStart}: a processor took it at once. */
        public void up(long now, boolean warmStart) {
            if (warmStart) {
                warm++;
            } else {
                cold++;
            }
            demand++;
            if (demand > LEVELS || leftAt[demand] == 0) {
                return;
            }
            counts[demand][bin(now - leftAt[demand])]++;
            leftAt[demand] = 0;
            long n = 0;
            for (long c : counts[demand]) {
                n += c;
            }
            if (n >= HALVE) {
                for (int b = 0; b <= BINS; b++) {
                    counts[demand][b] /= 2;
                }
            }
        }

        /** A job leaves the demand (it ended). */
        public void down(long now) {
            if (demand == 0) {
                return;
            }
            demand--;
            if (demand < LEVELS) {
                leftAt[demand + 1] = now;
            }
        }

        public void idle(long ms) {
            idleMs += Math.max(0, ms);
        }

        public History history() {
            return new History(demand, leftAt, counts, warm, cold, idleMs); // shared arrays: read it before the next event
        }
    }
}
