package dev.warmpool.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.pool.PoolSpec;
import dev.warmpool.pool.Processor;
import dev.warmpool.protocol.ProcessorState;
import dev.warmpool.testing.Specs;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Table tests of the learned keep-alive: the windows it learns from gaps fed through
 * {@link WarmthRecorder} (as the scripts feed Redis), and what {@link SizingPolicy} does with them.
 */
@Tag("unit")
class WarmthTests {
    static final long T0 = 1_800_000_000_000L;
    static final Warmth.Params P = Warmth.Params.DEFAULT.withLead(2_000);
    static final SizingPolicy.Timing TIMING = new SizingPolicy.Timing(10_000, 60_000, 30_000, 10_000, P);

    static PoolSpec spec(String warmth, int minIdle, int maxSize, int idleTimeoutSeconds) {
        return Specs.process("true")
                .minIdle(minIdle)
                .maxSize(maxSize)
                .idleTimeoutSeconds(idleTimeoutSeconds)
                .warmth(warmth)
                .build();
    }

    /** Jobs of {@code jobMs} arriving {@code at} (ms after T0), {@code width} at a time, one after another. */
    static WarmthRecorder fed(long jobMs, int width, long... at) {
        WarmthRecorder r = new WarmthRecorder();
        for (long t : at) {
            for (int i = 0; i < width; i++) {
                r.up(T0 + t, true);
            }
            for (int i = 0; i < width; i++) {
                r.down(T0 + t + jobMs);
            }
        }
        return r;
    }

    static long[] every(long periodMs, int n) {
        long[] t = new long[n];
        for (int i = 0; i < n; i++) {
            t[i] = i * periodMs;
        }
        return t;
    }

    static SizingPolicy.Plan plan(PoolSpec spec, WarmthRecorder r, long now, int queued, Processor... ps) {
        PoolSnapshot s = new PoolSnapshot(
                "t", spec, false, queued, now, List.of(ps), 0, List.of(), r.history(), 0, queued, null);
        Set<String> all = new HashSet<>();
        for (Processor p : ps) {
            all.add(p.id());
        }
        return SizingPolicy.plan(s, TIMING, all);
    }

    static Processor idle(String id, long since) {
        return new Processor(id, ProcessorState.IDLE, null, since, Long.MAX_VALUE / 2, since - 1000); // heartbeating
    }

    @Test
    void binsCoverEveryGapOnceAndInOrder() {
        assertEquals(0, Warmth.bin(0));
        assertEquals(0, Warmth.bin(99));
        for (int b = 1; b < Warmth.BINS; b++) {
            assertEquals(b, Warmth.bin(Warmth.upperMs(b - 1)), "bin " + b + " starts where " + (b - 1) + " ends");
            assertTrue(Warmth.lowerMs(b) < Warmth.upperMs(b));
        }
        assertEquals(Warmth.BINS, Warmth.bin(100L * 3600 * 1000), "past about 28 h: out of range");
    }

    @Test
    void aPeriodicTypeIsGivenBackBetweenArrivalsAndStartedAheadOfTheNext() {
        // a job of 1 s every 10 minutes: level 1 is left at t + 1 s and reached again 599 s later
        WarmthRecorder r = fed(1_000, 1, every(600_000, 12));
        Warmth.Window w = r.history().window(1, P, 600_000);
        assertTrue(w.trusted());
        assertTrue(w.prewarmMs() > 560_000 && w.prewarmMs() < 599_000, "ready just before the next arrival: " + w);
        assertTrue(w.keepAliveMs() >= 599_000 && w.keepAliveMs() < 640_000, w.toString());
        PoolSpec learned = spec(PoolSpec.LEARNED, 0, 4, 600);
        long end = T0 + 11 * 600_000 + 1_000; // the last job ended; its processor idles
        SizingPolicy.Plan between = plan(learned, r, end + 30_000, 0, idle("a", end));
        assertEquals(
                List.of("a"),
                between.retire().stream().map(SizingPolicy.Retire::id).toList(),
                "nothing due for 9 minutes");
        assertEquals(end, between.retire().get(0).idleSinceAtMost(), "unless it took a job meanwhile");
        assertEquals(0, plan(learned, r, end + 300_000, 0).start());
        assertEquals(1, plan(learned, r, end + w.prewarmMs() + 1, 0).start(), "started ahead of the predicted arrival");
        // the fixed keep-alive keeps it idle the whole 10 minutes instead
        assertTrue(plan(spec(PoolSpec.FIXED, 0, 4, 600), r, end + 300_000, 0, idle("a", end))
                .retire()
                .isEmpty());
    }

    @Test
    void withoutEnoughGapsTheFixedKeepAliveApplies() {
        WarmthRecorder r = fed(1_000, 1, 0, 3_600_000); // one gap: not representative
        Warmth.Window w = r.history().window(1, P, 300_000);
        assertFalse(w.trusted());
        assertEquals(300_000, w.keepAliveMs());
        PoolSpec learned = spec(PoolSpec.LEARNED, 0, 4, 300);
        long end = T0 + 3_600_000 + 1_000;
        assertTrue(plan(learned, r, end + 200_000, 0, idle("a", end)).retire().isEmpty(), "within the fixed 5 minutes");
        assertEquals(
                1, plan(learned, r, end + 301_000, 0, idle("a", end)).retire().size(), "past them");
        assertEquals(0, plan(learned, new WarmthRecorder(), T0, 0).start(), "a new pool with minIdle 0 starts nothing");
    }

    @Test
    void aBurstThatComesBackIsMetWithAsManyProcessorsAsItHad() {
        // four jobs at once every 2 minutes: levels 1 to 4 each have a gap of 2 minutes
        WarmthRecorder r = fed(5_000, 4, every(120_000, 10));
        long end = T0 + 9 * 120_000 + 5_000;
        PoolSpec learned = spec(PoolSpec.LEARNED, 0, 8, 600);
        Processor[] four = {idle("a", end), idle("b", end), idle("c", end), idle("d", end)};
        assertEquals(4, plan(learned, r, end + 60_000, 0, four).retire().size(), "none is due for another minute");
        long ahead = end + r.history().window(4, P, 600_000).prewarmMs();
        SizingPolicy.Plan p = plan(learned, r, ahead + 1, 0);
        assertEquals(4, p.start(), "all four levels are due again");
        assertEquals(2, plan(spec(PoolSpec.LEARNED, 0, 2, 600), r, ahead + 1, 0).start(), "within maxSize");
        assertEquals(
                3,
                plan(spec(PoolSpec.LEARNED, 3, 8, 600), r, end + 60_000, 0).start(),
                "at least minIdle, whatever was learned");
    }

    @Test
    void aLevelWhoseGapsAreNotWorthBridgingIsNotKeptWarm() {
        // gaps spread from 30 minutes to 5 hours, a cold start priced at a 1-minute keep-alive
        Random rnd = new Random(7);
        List<Long> at = new ArrayList<>();
        long t = 0;
        for (int i = 0; i < 40; i++) {
            at.add(t);
            t += 1_800_000 + (long) (rnd.nextDouble() * 16_200_000);
        }
        WarmthRecorder r = fed(1_000, 1, at.stream().mapToLong(Long::longValue).toArray());
        Warmth.Window w = r.history().window(1, P, 60_000);
        assertTrue(w.trusted());
        assertFalse(w.wants(0) || w.wants(60_000), "given back at once: " + w);
    }

    @Test
    void aSessionsProcessorIsKeptThroughItsGapsAndNotThroughTheNight() {
        // a notebook session: a job every 20 to 60 s for an hour, then 8 h without; three days of it
        Random rnd = new Random(3);
        List<Long> at = new ArrayList<>();
        for (int day = 0; day < 3; day++) {
            for (long t = day * 86_400_000L; t < day * 86_400_000L + 3_600_000; t += 20_000 + rnd.nextInt(40_000)) {
                at.add(t);
            }
        }
        WarmthRecorder r = fed(2_000, 1, at.stream().mapToLong(Long::longValue).toArray());
        Warmth.Window w = r.history().window(1, P, 600_000);
        assertTrue(w.wants(30_000) && w.wants(58_000), "through the session's gaps: " + w);
        assertFalse(w.wants(5 * 60_000), "not 5 minutes on, as the fixed 10 would: " + w);
    }

    @Test
    void aLevelsWindowIsWorkedOutAgainWhenItsCountsChangeInPlace() {
        // a WarmthRecorder's history shares its arrays: the same array, changed, must not find the old window
        WarmthRecorder r = fed(1_000, 1, every(600_000, 12));
        Warmth.Window tenMinutes = r.history().window(1, P, 600_000);
        long last = T0 + 11 * 600_000;
        for (int i = 1; i <= 40; i++) {
            r.up(last + i * 60_000, true);
            r.down(last + i * 60_000 + 1_000);
        }
        Warmth.History now = r.history();
        Warmth.Window oneMinute = now.window(1, P, 600_000);
        assertEquals(
                Warmth.window(1, now.counts()[1], P, 600_000), oneMinute, "as worked out from the counts themselves");
        assertTrue(oneMinute.keepAliveMs() < tenMinutes.prewarmMs(), tenMinutes + " then " + oneMinute);
        // a history decoded afresh with the same counts gets the same window
        Warmth.History decoded = new Warmth.History(
                now.demand(), now.leftAt().clone(), now.counts().clone(), 0, 0, 0);
        assertEquals(oneMinute, decoded.window(1, P, 600_000));
        assertEquals(
                Warmth.window(1, now.counts()[1], P.withLead(5_000), 600_000),
                decoded.window(1, P.withLead(5_000), 600_000),
                "other parameters, another window");
    }
}
