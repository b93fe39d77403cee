package dev.warmpool.policy;

import static dev.warmpool.policy.Warmth.BINS;
import static dev.warmpool.policy.Warmth.HALVE;
import static dev.warmpool.policy.Warmth.LEVELS;
import static dev.warmpool.policy.Warmth.bin;

import java.util.Map;

/**
 * The Java twin of warmth.lua, for the replay (bench) and the tests: the same records of the same
 * events, kept in memory. Test code, not the product's; WarmthParityTests holds it to warmth.lua.
 */
public final class WarmthRecorder {
    private int demand;
    private final long[] leftAt = new long[LEVELS + 1];
    private final long[][] counts = new long[LEVELS + 1][BINS + 1];
    private long warm;
    private long cold;
    private long idleMs;
    private final Warmth.Cached[] windows = new Warmth.Cached[LEVELS + 1];

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
        windows[demand] = null;
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

    public Warmth.History history() {
        return new Warmth.History(
                demand, leftAt, counts, warm, cold, idleMs, windows,
                Map.of()); // shared arrays: read it before the next event
    }
}
