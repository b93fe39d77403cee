package dev.warmpool.service;

import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.pool.Job;
import dev.warmpool.store.JobEnds;
import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Waiting for a job's end ({@code ?wait=}). A waiter registers for the job's end message
 * ({@link JobEnds}) before it reads the job, so an end between the two is not missed, and answers
 * with the ended job the message carries: the job is read once (GET), or not at all when the
 * waiter registered before the submit script ran (POST). A message that carried the id alone
 * (a job too large to send so) makes the waiter read the job; one that never came (lost while
 * the subscription reconnected) is covered by re-reads after a pause that doubles from
 * {@link #FIRST_SAFETY_READ} up to {@link #SAFETY_READ} while the subscription is live, and from
 * {@link #FIRST_POLL} up to {@link #LAST_POLL} while it is not. Each read of a job that has not
 * ended is also {@code held}'s to check: a job whose pool cannot start processors ends the wait
 * with that reason (JobService#held), rather than hold the waiter until its deadline for nothing.
 */
final class JobWaits {
    private static final Duration FIRST_POLL = Duration.ofMillis(5);
    /**
     * The first re-read while end messages are announced: late enough that a short job's message
     * comes first (a re-read at 5 ms, as when polling, read most warm jobs once or twice for nothing).
     */
    private static final Duration FIRST_SAFETY_READ = Duration.ofMillis(100);

    private static final Duration LAST_POLL = Duration.ofMillis(200);
    /** The longest pause between reads of a waited-for job while job ends are announced (a lost message costs this). */
    private static final Duration SAFETY_READ = Duration.ofSeconds(1);

    private final JobEnds ends;
    private final WarmpoolConfig config;
    private final Function<String, Uni<Job>> read;
    private final Function<Job, Uni<Job>> held;

    /**
     * {@code read} reads a job by id (a 404 failure when there is none); {@code held} checks a job
     * read that has not ended: the job, or a failure that ends the wait with its reason.
     */
    JobWaits(JobEnds ends, WarmpoolConfig config, Function<String, Uni<Job>> read, Function<Job, Uni<Job>> held) {
        this.ends = ends;
        this.config = config;
        this.read = read;
        this.held = held;
    }

    /** When a wait of {@code waitSeconds} (capped at {@code warmpool.jobs.max-wait}) that starts now runs out, in nanoTime. */
    long deadline(int waitSeconds) {
        if (waitSeconds < 0) {
            throw Refusal.invalid("wait", "'wait' must be 0 or more seconds.");
        }
        long cap = Math.min(waitSeconds, config.jobs().maxWait().toSeconds());
        return System.nanoTime() + cap * 1_000_000_000L;
    }

    /** Registers a waiter for the job's end (before the script that could end it runs, or before a read). */
    CompletableFuture<Job> watch(String id) {
        return ends.watch(id);
    }

    /** Drops a waiter that will not wait (the submit failed, or answered with another job). */
    void forget(String id, CompletableFuture<Job> end) {
        ends.forget(id, end);
    }

    /** The job once it has ended, or as it is when the deadline passes: reads it, then waits. */
    Uni<Job> untilEnd(String id, long deadline) {
        return readThenWait(id, deadline, firstPause());
    }

    private Duration firstPause() {
        return ends.live() ? FIRST_SAFETY_READ : FIRST_POLL;
    }

    /**
     * The job {@code submitted} (not ended) once it has ended, or as it is when the deadline
     * passes, its waiter {@code end} registered before the submit script ran: no read unless the
     * end message carried no job or did not come in time.
     */
    Uni<Job> afterSubmit(Job submitted, CompletableFuture<Job> end, long deadline) {
        if (deadline - System.nanoTime() <= 0) { // ?wait=0: the job as it is now, as GET ?wait=0 reads it
            forget(submitted.id(), end);
            return untilEnd(submitted.id(), deadline);
        }
        return await(submitted.id(), end, deadline, firstPause());
    }

    private Uni<Job> readThenWait(String id, long deadline, Duration pause) {
        CompletableFuture<Job> end = ends.watch(id);
        return Uni.createFrom()
                .deferred(() -> read.apply(id))
                .onFailure()
                .invoke(() -> ends.forget(id, end))
                .flatMap(job -> {
                    if (job.ended() || deadline - System.nanoTime() <= 0) {
                        ends.forget(id, end);
                        return Uni.createFrom().item(job);
                    }
                    return held.apply(job)
                            .onFailure()
                            .invoke(() -> ends.forget(id, end))
                            .flatMap(still -> await(id, end, deadline, pause));
                });
    }

    /** Waits up to {@code pause} for the end message: its job, or else a read (and a longer pause). */
    private Uni<Job> await(String id, CompletableFuture<Job> end, long deadline, Duration pause) {
        long left = deadline - System.nanoTime();
        Duration wait = pause.toNanos() < left
                ? pause
                : Duration.ofNanos(Math.max(left, 1)); // Mutiny's timeout must be positive
        Duration most = ends.live() ? SAFETY_READ : LAST_POLL;
        Duration next = pause.multipliedBy(2).compareTo(most) > 0 ? most : pause.multipliedBy(2);
        return Uni.createFrom()
                .completionStage(end)
                .ifNoItem()
                .after(wait)
                .recoverWithItem((Job) null)
                .onTermination()
                .invoke(() -> ends.forget(id, end))
                .flatMap(ended -> ended != null ? Uni.createFrom().item(ended) : readThenWait(id, deadline, next));
    }
}
