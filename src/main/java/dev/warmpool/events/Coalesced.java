package dev.warmpool.events;

import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A blocking task that many callers ask for, run at most once per {@code gap}: the first call runs
 * it at once; calls that come while it runs or within the gap after it started share one trailing
 * run, which starts when the gap has passed and the previous run has ended. So every caller gets
 * the answer of a run that started after it asked, and a burst of any size costs two runs.
 */
final class Coalesced<T> {
    /** Runs a task after a delay, on a thread that may block. */
    interface Scheduler {
        void after(long delayNanos, Runnable task);
    }

    private final Supplier<T> task;
    private final long gapNanos;
    private final LongSupplier nanos;
    private final Scheduler scheduler;

    private CompletableFuture<T> next;
    private boolean running;
    private boolean ranBefore;
    private long lastStart;
    private long runs;

    Coalesced(Supplier<T> task, long gapNanos, LongSupplier nanos, Scheduler scheduler) {
        this.task = task;
        this.gapNanos = gapNanos;
        this.nanos = nanos;
        this.scheduler = scheduler;
    }

    /** The answer of the next run: one that has not started yet. */
    synchronized CompletableFuture<T> request() {
        if (next == null) {
            next = new CompletableFuture<>();
            if (!running) {
                arm(); // else the run in progress arms it when it ends
            }
        }
        return next;
    }

    /** How many runs have started. */
    synchronized long runs() {
        return runs;
    }

    private void arm() {
        long wait = ranBefore ? Math.max(0, lastStart + gapNanos - nanos.getAsLong()) : 0;
        scheduler.after(wait, this::fire);
    }

    private void fire() {
        CompletableFuture<T> mine;
        synchronized (this) {
            if (running || next == null) {
                return;
            }
            mine = next;
            next = null;
            running = true;
            ranBefore = true;
            lastStart = nanos.getAsLong();
            runs++;
        }
        try {
            mine.complete(task.get());
        } catch (RuntimeException | Error e) {
            mine.completeExceptionally(e);
        } finally {
            synchronized (this) {
                running = false;
                if (next != null) {
                    arm();
                }
            }
        }
    }
}
