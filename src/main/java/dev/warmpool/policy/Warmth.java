package dev.warmpool.policy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Warmth that learns demand: the learned keep-alive's model, pure, shared by the reconciler
 * ({@link SizingPolicy}) and the replay (bench/replay), and the Java twin of what
 * {@code lua/lib/warmth.lua} records (WarmthRecorder (test sources)).
 *
 * <p>A pool's demand is its jobs that have not ended. Each demand level is treated as a job type
 * of its own: level {@code k} is "left" when demand falls from {@code k} to {@code k - 1}, and
 * "reached" again when it rises back to {@code k}. The k-th processor of a pool is needed exactly
 * while demand is at least {@code k}; so the gaps between leaving and reaching level {@code k}
 * are that processor's idle gaps, and several jobs at once (what causes most cold starts) are
 * learned level by level, not as one window per type. Each level keeps a histogram of its gaps
 * in logarithmic bins (2 % wide, 100 ms to about 28 h, then one out-of-range bin), so that the
 * two-second gaps of a notebook session and the hour of a timer are told apart alike.
 *
 * <p>The decision, per level, after the hybrid histogram policy of Shahrad et al. ("Serverless
 * in the Wild", USENIX ATC 2020): once the histogram is representative (enough samples, few out
 * of range) a processor of that level is wanted in a window after the level was left, from a
 * pre-warm time (less a margin and the time a processor takes to start) to a keep-alive (plus a
 * margin); before it the processor is given back and started again ahead of the predicted
 * return; otherwise the pool's fixed {@code idleTimeoutSeconds} applies. Where the hybrid policy
 * takes the 5th and 99th percentiles, this one picks the window that would have cost least on
 * the gaps seen, idle time plus cold starts priced at the fixed keep-alive ({@link #window}):
 * percentiles keep a notebook session's processor warm for hours when a few per cent of its
 * gaps are the nights between sessions, and they cannot say that a gap is not worth bridging.
 */
public final class Warmth {
    /** Demand levels learned; above it a pool's extra processors are not kept warm by the learned policy. */
    public static final int LEVELS = 64;
    /** The out-of-range bin: gaps past about 28 h. Bins 0..BINS-1 are in range. */
    public static final int BINS = 698;
    /** A level's counts are halved when its samples reach this (as warmth.lua does): recent demand weighs more. */
    public static final int HALVE = 4000;
    /** How much wider each bin is than the one before. */
    public static final double RATIO = 1.02;

    private Warmth() {}

    /** The bin of a gap, as warmth.lua's gap_bin computes it. */
    public static int bin(long gapMs) {
        if (gapMs < 100) {
            return 0;
        }
        return (int) Math.min(BINS, Math.floor(Math.log(gapMs / 100.0) / Math.log(RATIO)) + 1);
    }

    /** The shortest gap that bin {@code b} holds. */
    public static long lowerMs(int b) {
        return b <= 0 ? 0 : (long) Math.floor(100 * Math.pow(RATIO, b - 1));
    }

    /** The end of bin {@code b}: the shortest gap the next bin holds. */
    public static long upperMs(int b) {
        return b >= BINS ? Long.MAX_VALUE : (long) Math.ceil(100 * Math.pow(RATIO, b));
    }

    /**
     * How the learned policy reads a histogram. It trusts one with at least {@code minSamples}
     * gaps in range, of which at most {@code maxOutOfRange} (a share of all) are past it. It
     * prices a cold start at {@code coldStartPrice} times the pool's fixed keep-alive
     * ({@code idleTimeoutSeconds}: the idle time the pool's owner said a warm start is worth),
     * and widens the window it chose by {@code margin} (a share) on both sides and by
     * {@code leadMs} (a processor's start, and a pass) ahead.
     */
    public record Params(int minSamples, double maxOutOfRange, double coldStartPrice, double margin, long leadMs) {
        public static final Params DEFAULT = new Params(5, 0.5, 0.5, 0.02, 10_000);

        public Params withLead(long ms) {
            return new Params(minSamples, maxOutOfRange, coldStartPrice, margin, ms);
        }

        public Params withColdStartPrice(double price) {
            return new Params(minSamples, maxOutOfRange, price, margin, leadMs);
        }
    }

    /**
     * A pool's KeySchema.warmth, decoded: its demand, when each level was last left (0: it was
     * not, or it is in use), each level's gap counts by bin, warm and cold arrivals, and the idle
     * time of processors that stopped idling.
     */
    public record History(
            int demand,
            long[] leftAt,
            long[][] counts,
            long warm,
            long cold,
            long idleMs,
            Cached[] windows,
            Map<String, Long> ended) {
        public static final History NONE =
                new History(0, new long[LEVELS + 1], new long[LEVELS + 1][BINS + 1], 0, 0, 0);

        public History(int demand, long[] leftAt, long[][] counts, long warm, long cold, long idleMs) {
            this(demand, leftAt, counts, warm, cold, idleMs, new Cached[LEVELS + 1], Map.of());
        }

        /** Jobs that ended in {@code state} (a JobState name). */
        public long ended(String state) {
            return ended.getOrDefault(state, 0L);
        }

        /** The window of a level, worked out once per histogram (a WarmthRecorder drops it when the level's counts change). */
        public Window window(int level, Params p, long fixedKeepAliveMs) {
            Cached c = windows[level];
            if (c == null || c.params() != p || c.fixed() != fixedKeepAliveMs) {
                c = new Cached(p, fixedKeepAliveMs, Memo.window(level, counts[level], p, fixedKeepAliveMs));
                windows[level] = c;
            }
            return c.window();
        }

        public static History of(Map<String, String> h) {
            if (h == null || h.isEmpty()) {
                return NONE;
            }
            long[] left = new long[LEVELS + 1];
            long[][] counts = new long[LEVELS + 1][BINS + 1];
            Map<String, Long> ended = new TreeMap<>();
            h.forEach((k, v) -> {
                if (k.startsWith("e:")) {
                    ended.put(k.substring(2), Long.parseLong(v));
                }
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
            return new History(
                    Math.max(0, (int) number(h, "d")),
                    left,
                    counts,
                    number(h, "warm"),
                    number(h, "cold"),
                    number(h, "idleMs"),
                    new Cached[LEVELS + 1],
                    ended);
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
     * Windows already worked out, by their whole input: the level, its gap counts, the parameters
     * and the fixed keep-alive. A level's counts change only when a gap is recorded, but GET /pools,
     * the dashboard's feed (each second) and every reconcile pass decode a pool's history afresh;
     * without this each of them worked every level out again, about 20 ms of CPU for a pool of 64
     * levels, on the event loop.
     */
    static final class Memo {
        /** Windows kept: 64 levels of 16 learned pools; the least recently used goes first. */
        static final int SIZE = 1024;

        private static final Map<Key, Window> WINDOWS =
                Collections.synchronizedMap(new LinkedHashMap<>(SIZE, 0.75f, true) {
                    @Override
                    protected boolean removeEldestEntry(Map.Entry<Key, Window> eldest) {
                        return size() > SIZE;
                    }
                });

        private Memo() {}

        /** The counts as (bin, count) pairs of the bins that hold gaps: a copy (a WarmthRecorder's arrays change), and small. */
        private record Key(int level, long[] gaps, Params p, long fixed) {
            static Key of(int level, long[] counts, Params p, long fixed) {
                int n = 0;
                for (long c : counts) {
                    n += c != 0 ? 1 : 0;
                }
                long[] gaps = new long[2 * n];
                for (int b = 0, i = 0; b < counts.length; b++) {
                    if (counts[b] != 0) {
                        gaps[i++] = b;
                        gaps[i++] = counts[b];
                    }
                }
                return new Key(level, gaps, p, fixed);
            }

            @Override
            public boolean equals(Object o) {
                return o instanceof Key k
                        && k.level == level
                        && k.fixed == fixed
                        && k.p.equals(p)
                        && Arrays.equals(k.gaps, gaps);
            }

            @Override
            public int hashCode() {
                return (31 * level + Long.hashCode(fixed)) * 31 + Arrays.hashCode(gaps);
            }
        }

        static Window window(int level, long[] counts, Params p, long fixedKeepAliveMs) {
            Key key = Key.of(level, counts, p, fixedKeepAliveMs);
            Window w = WINDOWS.get(key);
            if (w == null) {
                w = Warmth.window(level, counts, p, fixedKeepAliveMs);
                WINDOWS.put(key, w);
            }
            return w;
        }
    }

    /** A level's window as worked out for these parameters. */
    public record Cached(Params params, long fixed, Window window) {}

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

    /**
     * The window for one level's histogram. Over the gaps seen, each candidate window (a
     * processor ready from {@code a}, or from the level's leaving, to {@code k} after it: the
     * edges of the bins that hold gaps) costs the idle time it would have held plus the price of
     * the cold starts it would have left (gaps before {@code a} or past {@code k}); the cheapest
     * wins, including no window at all. The fixed keep-alive is one of the candidates, so on the
     * gaps seen the choice is never dearer than the fixed policy at the same price.
     */
    public static Window window(int level, long[] counts, Params p, long fixedKeepAliveMs) {
        long n = 0;
        for (long c : counts) {
            n += c;
        }
        long inRange = n - counts[BINS];
        if (inRange < p.minSamples() || counts[BINS] > p.maxOutOfRange() * n) {
            return new Window(level, n, false, 0, fixedKeepAliveMs);
        }
        int[] nz = new int[BINS];
        int m = 0;
        for (int b = 0; b < BINS; b++) {
            if (counts[b] > 0) {
                nz[m++] = b;
            }
        }
        // prefix sums over the bins that hold gaps: how many, and their summed (mid-bin) lengths
        double[] cnt = new double[m + 1];
        double[] len = new double[m + 1];
        for (int i = 0; i < m; i++) {
            cnt[i + 1] = cnt[i] + counts[nz[i]];
            len[i + 1] = len[i] + counts[nz[i]] * mid(nz[i]);
        }
        double price = p.coldStartPrice() * fixedKeepAliveMs;
        // no more cold starts than the fixed keep-alive would have had on these gaps
        double fixedCold = n - cnt[upper(nz, m, fixedKeepAliveMs)];
        double bestCost = fixedCold >= n ? price * n : Double.MAX_VALUE; // no window: every gap ends in a cold start
        long bestA = -1, bestK = -1;
        int[] edges = candidates(cnt, m);
        // a candidate window opens at 0 (kept from the leaving on) or at a bin's lower edge, and
        // closes at a bin's upper edge or at the fixed keep-alive; with many bins, the edges are
        // those of CANDIDATES quantiles of the gaps (the sums still count every bin)
        for (int ii = -1; ii < edges.length; ii++) {
            int i = ii < 0 ? -1 : edges[ii];
            long a = i < 0 ? 0 : lowerMs(nz[i]);
            int from = Math.max(i, 0);
            for (int jj = Math.max(ii, 0); jj <= edges.length; jj++) {
                int j = jj < edges.length ? edges[jj] : m;
                if (j < from) {
                    continue;
                }
                long k = j < m ? upperMs(nz[j]) : fixedKeepAliveMs;
                if (k <= a) {
                    continue;
                }
                int to = j < m ? j + 1 : upper(nz, m, k); // the bins inside: [from, to)
                if (to < from) {
                    continue;
                }
                double inside = cnt[to] - cnt[from];
                double before = cnt[from];
                double after = n - cnt[to];
                double cost = (len[to] - len[from]) - inside * a + after * (k - a) + price * (before + after);
                if (cost < bestCost && before + after <= fixedCold) {
                    bestCost = cost;
                    bestA = a;
                    bestK = k;
                }
            }
        }
        if (bestK < 0) {
            return new Window(level, n, true, Long.MAX_VALUE, -1); // never worth keeping warm
        }
        long pre = bestA == 0 ? 0 : Math.max(0, (long) (bestA * (1 - p.margin())) - p.leadMs());
        return new Window(level, n, true, pre, (long) (bestK * (1 + p.margin())));
    }

    /** At most this many window edges are tried per side: enough to follow any shape, cheap each pass. */
    static final int CANDIDATES = 48;

    /** Indices (into the bins that hold gaps) of the candidate edges: all of them, or one per quantile step. */
    private static int[] candidates(double[] cnt, int m) {
        if (m <= CANDIDATES) {
            int[] all = new int[m];
            for (int i = 0; i < m; i++) {
                all[i] = i;
            }
            return all;
        }
        TreeSet<Integer> picked = new TreeSet<>(List.of(0, m - 1));
        double total = cnt[m];
        int i = 0;
        for (int q = 1; q < CANDIDATES - 1; q++) {
            double rank = total * q / (CANDIDATES - 1);
            while (i < m - 1 && cnt[i + 1] < rank) {
                i++;
            }
            picked.add(i);
        }
        return picked.stream().mapToInt(Integer::intValue).toArray();
    }

    /** A bin's typical gap: its geometric middle. */
    static double mid(int b) {
        return b == 0 ? 50 : lowerMs(b) * Math.sqrt(RATIO);
    }

    /** How many of the first {@code m} bins in {@code nz} end at or before {@code k}. */
    private static int upper(int[] nz, int m, long k) {
        int i = 0;
        while (i < m && upperMs(nz[i]) <= k) {
            i++;
        }
        return i;
    }

    /** The windows of the levels 1 to {@code top} that have seen a gap, in level order (what GET /pools and the metrics show). */
    public static List<Window> windows(History h, int top, Params p, long fixedKeepAliveMs) {
        List<Window> out = new ArrayList<>();
        for (int level = 1; level <= Math.min(top, LEVELS); level++) {
            if (h.samples(level) > 0) {
                out.add(h.window(level, p, fixedKeepAliveMs));
            }
        }
        return out;
    }

    /**
     * How many idle processors the learned policy wants now above a demand of {@code demand}: the
     * levels from {@code demand + 1} to {@code top} (the pool's size) whose window wants one.
     */
    public static int idleWanted(History h, int demand, int top, long now, long fixedKeepAliveMs, Params p) {
        int wanted = 0;
        for (int level = Math.max(1, demand + 1); level <= Math.min(top, LEVELS); level++) {
            long left = h.leftAt()[level];
            if (left > 0 && h.window(level, p, fixedKeepAliveMs).wants(now - left)) {
                wanted++;
            }
        }
        return wanted;
    }
}
