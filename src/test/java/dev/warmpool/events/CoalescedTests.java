package dev.warmpool.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** At most one run a gap, on a clock and a scheduler the test drives by hand. */
@Tag("unit")
class CoalescedTests {
    static final long GAP = 1_000_000_000L;

    final AtomicLong now = new AtomicLong(5 * GAP);
    final AtomicLong runs = new AtomicLong();
    /** Delays asked for and their tasks, run when the test says. */
    final List<Long> delays = new ArrayList<>();

    final List<Runnable> due = new ArrayList<>();
    final Coalesced<Long> coalesced = new Coalesced<>(runs::incrementAndGet, GAP, now::get, (delay, task) -> {
        delays.add(delay);
        due.add(task);
    });

    void runDue() {
        List<Runnable> tasks = new ArrayList<>(due);
        due.clear();
        tasks.forEach(Runnable::run);
    }

    @Test
    void aBurstOfFiftyCostsTwoRuns() {
        CompletableFuture<Long> first = coalesced.request();
        runDue(); // the first runs at once
        assertEquals(1L, first.join());
        List<CompletableFuture<Long>> rest = new ArrayList<>();
        for (int i = 0; i < 49; i++) {
            now.addAndGet(GAP / 100);
            rest.add(coalesced.request());
        }
        assertEquals(List.of(0L, GAP - GAP / 100), delays, "the second waits out the gap from the first's start");
        runDue();
        rest.forEach(f -> assertEquals(2L, f.join()));
        assertEquals(2, runs.get());
        assertEquals(2, coalesced.runs());
    }

    /** A call that comes while the first run is under way (made from inside that run). */
    CompletableFuture<Long> during;

    @Test
    void aCallWhileARunIsUnderWayGetsTheNextRunNotThatOne() {
        Coalesced<Long>[] self = new Coalesced[1];
        self[0] = new Coalesced<>(
                () -> {
                    if (during == null) {
                        during = self[0].request();
                    }
                    return runs.incrementAndGet();
                },
                GAP,
                now::get,
                (delay, task) -> due.add(task));
        CompletableFuture<Long> first = self[0].request();
        runDue();
        assertEquals(1L, first.join());
        assertFalse(during.isDone(), "a call made during the run waits for the next");
        assertEquals(1, due.size(), "the run armed the next one when it ended");
        runDue();
        assertEquals(2L, during.join());
    }

    @Test
    void aCallLongAfterTheLastRunRunsAtOnce() {
        coalesced.request();
        runDue();
        now.addAndGet(3 * GAP);
        CompletableFuture<Long> later = coalesced.request();
        assertEquals(List.of(0L, 0L), delays);
        runDue();
        assertTrue(later.isDone());
        assertEquals(2L, later.join());
    }

    @Test
    void aFailedRunFailsItsCallersAndTheNextRunStillComes() {
        AtomicLong calls = new AtomicLong();
        Coalesced<Long> flaky = new Coalesced<>(
                () -> {
                    if (calls.incrementAndGet() == 1) {
                        throw new IllegalStateException("redis down");
                    }
                    return calls.get();
                },
                GAP,
                now::get,
                (delay, task) -> due.add(task));
        CompletableFuture<Long> first = flaky.request();
        runDue();
        assertTrue(first.isCompletedExceptionally());
        CompletableFuture<Long> second = flaky.request();
        runDue();
        assertEquals(2L, second.join());
    }
}
