package dev.warmpool.service;

import dev.warmpool.pool.Job;
import dev.warmpool.pool.JobEvent;
import dev.warmpool.protocol.JobState;
import dev.warmpool.store.JobEnds;
import dev.warmpool.store.PoolStore;
import dev.warmpool.sweep.Sweep;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.MultiEmitter;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

/**
 * Follows a job or a sweep as it goes, for {@code GET /jobs/{id}/events}, {@code /jobs/{id}/logs}
 * and {@code GET /sweeps/{id}/events}. Each step registers for the job's next change (its end, a
 * start, a log batch, a report: {@link JobEnds#watchChange}) before it reads, so nothing said
 * between the read and the wait is missed, reads the job and then its event stream after the
 * last entry sent, and waits; a lost message costs at most {@link #SAFETY_READ}. The job is read
 * before its stream: its agent writes the last lines before it records the end, so a job read as
 * ended has all its lines in the stream read after.
 */
@ApplicationScoped
public class Follower {
    /** The most stream entries read at once; more are read at once after. */
    static final int PAGE = 500;

    static final Duration SAFETY_READ = Duration.ofSeconds(15);
    /** A sweep is read again at most this often while its trials report. */
    static final Duration SWEEP_EVERY = Duration.ofMillis(250);

    private static final Pattern STREAM_ID = Pattern.compile("\\d{1,20}-\\d{1,20}");

    /** What following a job gives: its state, a log line, a report, its end; or a sweep and its trials. */
    public record Item(String kind, String id, Object data) {
        public static final String STATE = "state";
        public static final String END = "end";
        public static final String SWEEP = "sweep";
        public static final String TRIAL = "trial";
        /** A sweep's new warning (a sentence), e.g. an objective its trials do not report. */
        public static final String WARNING = "warning";
    }

    private final PoolStore store;
    private final JobEnds changes;
    private final SweepService sweeps;
    private final JobService jobs;

    public Follower(PoolStore store, JobEnds changes, SweepService sweeps, JobService jobs) {
        this.jobs = jobs;
        this.store = store;
        this.changes = changes;
        this.sweeps = sweeps;
    }

    /**
     * The job's state now, then its log lines and reports after {@code afterId} (a
     * {@code Last-Event-ID}; null: from the first), each state it goes through, and its end; with
     * {@code follow} false, only what there is now. Fails with 404 when there is no such job.
     */
    public Multi<Item> job(String id, String afterId, boolean follow) {
        String type = jobs.typeOf(id);
        if (afterId != null && !STREAM_ID.matcher(afterId).matches()) {
            throw Refusal.invalid(
                    "Last-Event-ID",
                    "Last-Event-ID must be the id of an event this stream sent, like " + "1733300000000-0; '"
                            + UserInput.shown(afterId) + "' is not one.");
        }
        return Multi.createFrom().emitter(em -> step(em, type, id, afterId, null, follow, true));
    }

    /**
     * The job's output as text lines: its live log, or its log tail when it kept none (live logs
     * off, or it ended before they came); with {@code follow}, until it ends.
     */
    public Multi<String> logs(String id, boolean follow) {
        AtomicBoolean any = new AtomicBoolean();
        AtomicReference<Job> last = new AtomicReference<>();
        return job(id, null, follow)
                .onItem()
                .transformToIterable(item -> {
                    if (JobEvent.LOG.equals(item.kind())) {
                        any.set(true);
                        return List.of((String) item.data());
                    }
                    if (item.data() instanceof Job j) {
                        last.set(j);
                    }
                    return List.<String>of();
                })
                .onCompletion()
                .continueWith(() -> {
                    Job j = last.get();
                    if (any.get()
                            || j == null
                            || j.result() == null
                            || j.result().logTail() == null
                            || j.result().logTail().isEmpty()) {
                        return List.of();
                    }
                    String tail = j.result().logTail();
                    return List.of(tail.endsWith("\n") ? tail.substring(0, tail.length() - 1) : tail);
                });
    }

    private void step(
            MultiEmitter<? super Item> em,
            String type,
            String id,
            String cursor,
            JobState seen,
            boolean follow,
            boolean first) {
        if (em.isCancelled()) {
            return;
        }
        CompletableFuture<Void> change = follow ? changes.watchChange(id) : null;
        store.job(type, id)
                .flatMap(job -> job.isEmpty()
                        ? Uni.createFrom().item(new Read(null, List.of()))
                        : store.jobEvents(type, id, cursor, PAGE).map(events -> new Read(job.get(), events)))
                .subscribe()
                .with(
                        read -> {
                            Job job = read.job();
                            if (job == null) {
                                forget(id, change);
                                if (first) {
                                    em.fail(jobs.noJob(id));
                                } else {
                                    em.complete(); // it expired while followed
                                }
                                return;
                            }
                            if (job.state() != seen && !job.ended()) {
                                em.emit(new Item(Item.STATE, null, job)); // the lines read with it came in this state
                            }
                            String at = cursor;
                            for (JobEvent e : read.events()) {
                                em.emit(new Item(e.kind(), e.id(), e.data()));
                                at = e.id();
                            }
                            boolean more = read.events().size() == PAGE;
                            String next = at;
                            if (more) {
                                forget(id, change);
                                step(em, type, id, next, job.state(), follow, false);
                            } else if (job.ended() || !follow) {
                                forget(id, change);
                                if (job.ended()) {
                                    em.emit(new Item(Item.END, null, job));
                                }
                                em.complete();
                            } else {
                                Uni.createFrom()
                                        .completionStage(change)
                                        .ifNoItem()
                                        .after(SAFETY_READ)
                                        .recoverWithItem((Void) null)
                                        .subscribe()
                                        .with(x -> {
                                            forget(id, change);
                                            step(em, type, id, next, job.state(), true, false);
                                        });
                            }
                        },
                        e -> {
                            forget(id, change);
                            em.fail(e);
                        });
    }

    private record Read(Job job, List<JobEvent> events) {}

    /**
     * The sweep as it is (trials included), then each trial as it ends and the sweep again after
     * it, until the sweep ends. A reconnect starts again from the sweep as it is: it holds every
     * trial that ended before.
     */
    public Multi<Item> sweep(String id) {
        return Multi.createFrom().emitter(em -> sweepStep(em, id, null, List.of(), true));
    }

    private void sweepStep(
            MultiEmitter<? super Item> em, String id, Set<String> ended, List<String> warned, boolean first) {
        if (em.isCancelled()) {
            return;
        }
        CompletableFuture<Void> change = changes.watchChange(id);
        sweeps.get(id)
                .subscribe()
                .with(
                        s -> {
                            Set<String> now = new HashSet<>();
                            boolean news = ended == null;
                            for (Sweep.Trial t : s.trials() == null ? List.<Sweep.Trial>of() : s.trials()) {
                                if (t.state() != null && t.state().ended()) {
                                    now.add(t.id());
                                    if (ended != null && !ended.contains(t.id())) {
                                        em.emit(new Item(Item.TRIAL, null, t));
                                        news = true;
                                    }
                                }
                            }
                            List<String> warnings = s.warnings() == null ? List.of() : s.warnings();
                            for (String w : warnings) {
                                if (!warned.contains(w)) {
                                    em.emit(new Item(Item.WARNING, null, w));
                                }
                            }
                            boolean over = !"RUNNING".equals(s.state());
                            // the sweep as it is comes first, also when it ended before the follower came
                            if (ended == null || news && !over) {
                                em.emit(new Item(Item.SWEEP, null, s));
                            }
                            if (over) {
                                em.emit(new Item(Item.END, null, s));
                            }
                            if (over) {
                                forget(id, change);
                                em.complete();
                                return;
                            }
                            Uni.createFrom()
                                    .completionStage(change)
                                    .ifNoItem()
                                    .after(SAFETY_READ)
                                    .recoverWithItem((Void) null)
                                    .onItem()
                                    .delayIt()
                                    .by(SWEEP_EVERY)
                                    .subscribe()
                                    .with(x -> {
                                        forget(id, change);
                                        sweepStep(em, id, now, warnings, false);
                                    });
                        },
                        e -> {
                            forget(id, change);
                            if (first) {
                                em.fail(e);
                            } else {
                                em.complete();
                            }
                        });
    }

    private void forget(String id, CompletableFuture<Void> change) {
        if (change != null) {
            changes.forget(id, change);
        }
    }
}
