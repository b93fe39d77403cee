package dev.warmpool.service;

import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.policy.PoolSnapshot;
import dev.warmpool.pool.Ids;
import dev.warmpool.pool.Job;
import dev.warmpool.pool.Timestamps;
import dev.warmpool.protocol.JobState;
import dev.warmpool.protocol.ProcessorState;
import dev.warmpool.protocol.script.BatchReply;
import dev.warmpool.protocol.script.CancelReply;
import dev.warmpool.protocol.script.Idempotency;
import dev.warmpool.protocol.script.Refused;
import dev.warmpool.protocol.script.SubmitReply;
import dev.warmpool.store.JobEnds;
import dev.warmpool.store.PoolStore;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.validation.Validator;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** Jobs: submit (one script: assign or queue), read, wait for the end, list, cancel. */
@ApplicationScoped
public class JobService {
    private final PoolStore store;
    private final PoolService pools;
    private final ReconcilerPort reconciler;
    private final Validator validator;
    private final WarmpoolConfig config;
    private final SubmitLimiter limiter;
    private final JobWaits waits;
    private final Access access;
    private final IdempotencyKeys keys;

    public JobService(
            PoolStore store,
            PoolService pools,
            ReconcilerPort reconciler,
            Validator validator,
            WarmpoolConfig config,
            SubmitLimiter limiter,
            JobEnds ends,
            IdempotencyKeys keys) {
        this.keys = keys;
        this.waits = new JobWaits(ends, config, this::get, this::held);
        this.store = store;
        this.pools = pools;
        this.reconciler = reconciler;
        this.validator = validator;
        this.config = config;
        this.limiter = limiter;
        this.access = new Access(store);
    }

    public Uni<Job> submit(JobRequest request, String idempotencyKey, Caller caller) {
        return submit(request, idempotencyKey, caller, id -> {});
    }

    /**
     * Submits and waits for the end in one request (POST ?wait=): the job once it has ended, or
     * as it is when {@code waitSeconds} have passed. The waiter registers before the submit
     * script runs, so the end message is not missed and the job need not be read (see {@link JobWaits}).
     */
    public Uni<Job> submitAndWait(JobRequest request, String idempotencyKey, Caller caller, int waitSeconds) {
        long deadline = waits.deadline(waitSeconds);
        AtomicReference<CompletableFuture<Job>> end = new AtomicReference<>();
        AtomicReference<String> watched = new AtomicReference<>();
        return submit(request, idempotencyKey, caller, id -> {
                    watched.set(id);
                    end.set(waits.watch(id));
                })
                .onFailure()
                .invoke(() -> {
                    if (end.get() != null) {
                        waits.forget(watched.get(), end.get());
                    }
                })
                .flatMap(job -> {
                    if (job.id().equals(watched.get()) && !job.ended()) {
                        return waits.afterSubmit(job, end.get(), deadline);
                    }
                    waits.forget(watched.get(), end.get()); // a replayed Idempotency-Key's job: read it
                    return job.ended() ? Uni.createFrom().item(job) : waits.untilEnd(job.id(), deadline);
                });
    }

    /** {@code beforeStore} hears the new job's id before the submit script runs. */
    private Uni<Job> submit(JobRequest request, String idempotencyKey, Caller caller, Consumer<String> beforeStore) {
        JobRequest r = BodyValidation.valid(validator, request, "at least {\"type\": \"<job type>\"}");
        UserInput.checkType(r.type());
        Access.checkEnvNames(r.env(), "env");
        Idempotency idem = keys.check(idempotencyKey, r, caller);
        checkRoom();
        limiter.take(caller, 1);
        Accepted job = accept(r, "", caller);
        beforeStore.accept(job.id());
        return access.check(r.type(), caller, List.of(job.env()), List.of("env"))
                .flatMap(ok -> store.submit(r.type(), job.stored(), idem))
                .flatMap(reply -> submitted(reply, job, idem, idempotencyKey));
    }

    /**
     * Stores a server-side sweep's driver job (SweepDrivers) as {@code id}: {@code r} as {@code caller} submitted it,
     * plus the fields only the manager writes ({@code apiToken}, {@code driverOf}). SweepDrivers checked that its
     * pool admits the caller; no rate is taken (the sweep took it).
     */
    Uni<Job> submitDriver(JobRequest r, String id, Caller caller, Map<String, String> managerFields) {
        Accepted job = accept(r, "", caller).as(id, managerFields);
        return store.submit(r.type(), job.stored(), Idempotency.NONE)
                .flatMap(reply -> submitted(reply, job, Idempotency.NONE, null));
    }

    /** The submit script's reply as the accepted job, or the refusal it means. */
    private Uni<Job> submitted(SubmitReply reply, Accepted job, Idempotency idem, String idempotencyKey) {
        if (reply instanceof Refused refused) {
            return refused(
                    refused, job.request().type(), "", d -> replay(idempotencyKey, idem, d.first(), d.fingerprint()));
        }
        if (reply instanceof SubmitReply.Assigned a) {
            return Uni.createFrom().item(job.view(a.processor(), Timestamps.iso(Long.toString(a.now())), a.tenant()));
        }
        reconciler.nudge(); // no idle processor: start one now, not at the next tick
        SubmitReply.Queued q = (SubmitReply.Queued) reply;
        return Uni.createFrom().item(job.view(null, Timestamps.iso(Long.toString(q.now())), q.tenant()));
    }

    /** Up to 1000 jobs of one type in one step, all or none (202, in order); an Idempotency-Key replays the first. */
    public Uni<List<Job>> submitBatch(BatchRequest request, String idempotencyKey, Caller caller) {
        BatchRequest b = BodyValidation.valid(validator, request, "{\"jobs\": [{\"type\": \"<job type>\"}, ...]}");
        String type = b.jobs().get(0).type();
        UserInput.checkType(type, "jobs[0].type");
        for (int i = 1; i < b.jobs().size(); i++) {
            if (!type.equals(b.jobs().get(i).type())) {
                throw Refusal.invalid(
                        "jobs[" + i + "].type",
                        "Every job of a batch must have the same type: jobs[0] is '"
                                + type + "', jobs[" + i + "] is '"
                                + UserInput.shown(b.jobs().get(i).type())
                                + "'; send one batch per type.");
            }
        }
        for (int i = 0; i < b.jobs().size(); i++) {
            Access.checkEnvNames(b.jobs().get(i).env(), "jobs[" + i + "].env");
        }
        Idempotency idem = keys.check(idempotencyKey, b, caller);
        checkRoom();
        limiter.take(caller, b.jobs().size());
        List<Accepted> jobs = new ArrayList<>(b.jobs().size());
        for (int i = 0; i < b.jobs().size(); i++) {
            jobs.add(accept(b.jobs().get(i), "jobs[" + i + "].", caller));
        }
        List<String> envFields = IntStream.range(0, jobs.size())
                .mapToObj(i -> "jobs[" + i + "].env")
                .toList();
        return access.check(type, caller, jobs.stream().map(Accepted::env).toList(), envFields)
                .flatMap(ok -> store.submitBatch(
                        type, jobs.stream().map(Accepted::stored).toList(), idem))
                .flatMap(reply -> batchSubmitted(reply, type, jobs, idem, idempotencyKey));
    }

    /** The batch script's reply as the accepted jobs, in the request's order, or the refusal it means. */
    private Uni<List<Job>> batchSubmitted(
            BatchReply reply, String type, List<Accepted> jobs, Idempotency idem, String idempotencyKey) {
        if (reply instanceof Refused refused) {
            return refused(
                    refused,
                    type,
                    "a batch of " + jobs.size() + " jobs is taken whole and would not fit; ",
                    d -> replayBatch(idempotencyKey, idem, d.first(), d.fingerprint()));
        }
        BatchReply.Taken taken = (BatchReply.Taken) reply;
        String now = Timestamps.iso(Long.toString(taken.now()));
        List<Job> out = new ArrayList<>(jobs.size());
        boolean queued = false;
        for (int i = 0; i < jobs.size(); i++) {
            String pid = taken.processors().get(i);
            queued |= pid.isEmpty();
            out.add(jobs.get(i).view(pid.isEmpty() ? null : pid, now, null));
        }
        if (queued) {
            reconciler.nudge();
        }
        return Uni.createFrom().item(out);
    }

    /**
     * What a submit script's refusal means to the client: no pool (404), a full queue (429 saying
     * {@code fullWhy}), a draining pool (409, taking no new {@code what}), a repeated
     * Idempotency-Key (the replay).
     */
    <T> Uni<T> refused(
            Refused refused, String type, String what, String fullWhy, Function<Refused.Duplicate, Uni<T>> duplicate) {
        if (refused instanceof Refused.Duplicate d) {
            return duplicate.apply(d);
        }
        if (refused instanceof Refused.Full f) {
            return Uni.createFrom().failure(queueFull(type, f.queued(), fullWhy));
        }
        if (refused instanceof Refused.Draining) {
            return Uni.createFrom().failure(Refusal.draining(type, what));
        }
        return pools.unknownType(type);
    }

    private <T> Uni<T> refused(
            Refused refused, String type, String fullWhy, Function<Refused.Duplicate, Uni<T>> duplicate) {
        return refused(refused, type, "jobs", fullWhy, duplicate);
    }

    /** The soft global bound on queued jobs (the last reconcile pass's count). */
    private void checkRoom() {
        if (reconciler.queuedJobs() >= config.jobs().maxQueued()) {
            throw new Refusal(
                            Refusal.Kind.TOO_MANY,
                            "too-many-jobs",
                            "Too many requests",
                            "warmpool holds " + reconciler.queuedJobs()
                                    + " queued jobs, its limit (warmpool.jobs.max-queued); retry when some have run.")
                    .retryAfter(10);
        }
    }

    private static Refusal queueFull(String type, long queued, String why) {
        return new Refusal(
                        Refusal.Kind.TOO_MANY,
                        "queue-full",
                        "Too many requests",
                        "The queue of pool '" + type + "' is full ("
                                + queued + " jobs, its maxQueued); " + why
                                + "retry when some have run, or raise maxQueued with PUT /pools/"
                                + type + ".")
                .retryAfter(5);
    }

    /** {@code field} prefixes the names in errors, e.g. "jobs[3]." in a batch. */
    private Accepted accept(JobRequest r, String field, Caller caller) {
        return Accepted.of(r, field, caller, config, store::write);
    }

    /** The jobs a repeated Idempotency-Key's batch created, if the request is the same one. */
    private Uni<List<Job>> replayBatch(String key, Idempotency idem, String jobIds, String fingerprint) {
        if (!idem.fingerprint().equals(fingerprint)) {
            return Uni.createFrom().failure(keys.reused(key, "batch", jobIds.split(",")[0]));
        }
        return Uni.join()
                .all(Arrays.stream(jobIds.split(",")).map(this::get).toList())
                .andFailFast();
    }

    /** The job a repeated Idempotency-Key created, if the request is the same one. */
    private Uni<Job> replay(String key, Idempotency idem, String jobId, String fingerprint) {
        if (!idem.fingerprint().equals(fingerprint)) {
            return Uni.createFrom().failure(keys.reused(key, "job", jobId));
        }
        return get(jobId);
    }

    public Uni<Job> get(String id) {
        String type = typeOf(id);
        return store.job(type, id).map(j -> j.orElseThrow(() -> noJob(id)));
    }

    /**
     * The job once it has ended, or as it is when {@code waitSeconds} have passed; a 503 when its
     * pool cannot start processors (see {@link #held}).
     */
    public Uni<Job> waitForEnd(String id, int waitSeconds) {
        return waits.untilEnd(id, waits.deadline(waitSeconds));
    }

    /**
     * A waited-for job that has not ended, checked: a queued job whose pool cannot start processors
     * fails the wait with the pool's start error ({@link Refusal#cannotStart}), once that error was
     * recorded after the job was submitted (a start tried for it, or while it waited, failed), no
     * processor has come up since, and none is up to take it when it comes free. A stale error
     * (from before the job came) does not: the starts the job asks for may well succeed. The job
     * stays queued either way.
     */
    Uni<Job> held(Job job) {
        if (job.state() != JobState.QUEUED || job.submittedAt() == null) {
            return Uni.createFrom().item(job);
        }
        Instant submitted = Instant.parse(job.submittedAt());
        return store.lastStartError(job.type()).flatMap(last -> {
            if (last == null || last.at().isBefore(submitted)) {
                return Uni.createFrom().item(job);
            }
            return store.snapshot(job.type()).map(s -> {
                PoolSnapshot.StartError now =
                        s.map(PoolSnapshot::currentStartError).orElse(null);
                if (now == null || s.get().count(ProcessorState.IDLE) + s.get().count(ProcessorState.BUSY) > 0) {
                    return job;
                }
                throw Refusal.cannotStart(job.type(), job.id(), now.reason(), now.at());
            });
        });
    }

    public Uni<List<Job>> list(String type, String state, Integer limit) {
        return list(type, state, limit, null);
    }

    /** Jobs, newest first; with {@code sweep}, that sweep's trials in trial order. */
    public Uni<List<Job>> list(String type, String state, Integer limit, String sweep) {
        int n = limit == null ? 50 : limit;
        if (n < 1 || n > 1000) {
            throw Refusal.invalid("limit", "'limit' must be between 1 and 1000.");
        }
        String named = state == null || state.isEmpty() ? null : state.toUpperCase();
        if (named != null
                && Arrays.stream(JobState.values()).noneMatch(s -> s.name().equals(named))) {
            throw Refusal.invalid(
                    "state",
                    "'state' must be one of "
                            + Arrays.stream(JobState.values()).map(Enum::name).collect(Collectors.joining(", ")) + ".");
        }
        if (sweep != null && !sweep.isEmpty()) {
            String sweepType = Optional.ofNullable(Ids.typeOfSweep(sweep)).orElseThrow(() -> Refusal.noSweep(sweep));
            if (type != null && !type.isEmpty() && !type.equals(sweepType)) {
                throw Refusal.invalid(
                        "type",
                        "Sweep " + sweep + " runs jobs of type '" + sweepType + "', not '" + UserInput.shown(type)
                                + "'; leave 'type' out or make them match.");
            }
            return store.jobs(sweepType, JobState.parse(named), n, sweep);
        }
        JobState wanted = JobState.parse(named);
        return pools.newestOverPools(
                type,
                n,
                t -> store.jobs(t, wanted, n),
                Comparator.comparing(Job::submittedAt, Comparator.nullsLast(Comparator.reverseOrder()))
                        .thenComparing(Job::id, Comparator.reverseOrder()));
    }

    /** Cancels a job: the caller's own, or anyone's as an admin (403 otherwise, and nothing changes). */
    public Uni<Job> cancel(String id, Caller caller) {
        return cancel(id, caller, JobState.CANCELLED, null);
    }

    /**
     * Ends a job that has not ended in {@code end}, CANCELLED or EARLY_STOPPED (a tuner outside
     * warmpool pruned it), with {@code reason} (or who cancelled it) as its error.
     */
    public Uni<Job> cancel(String id, Caller caller, JobState end, String reason) {
        String type = typeOf(id);
        if (end != JobState.CANCELLED && end != JobState.EARLY_STOPPED) {
            throw Refusal.invalid("state", "A job is cancelled into CANCELLED or EARLY_STOPPED, not " + end + ".");
        }
        if (reason != null && reason.length() > 1000) {
            throw Refusal.invalid("reason", "'reason' is at most 1000 characters.");
        }
        String why = reason == null || reason.isBlank()
                ? (end == JobState.EARLY_STOPPED ? "early-stopped by " : "cancelled by ") + caller.name()
                : reason;
        return get(id).invoke(job -> Access.checkMayCancel(caller, "Job", id, job.submittedBy()))
                .flatMap(job ->
                        store.cancel(type, id, why, config.jobs().retention().toSeconds(), end))
                .flatMap(reply -> cancelled(id, reply));
    }

    private Uni<Job> cancelled(String id, CancelReply reply) {
        if (reply instanceof CancelReply.NoJob) {
            throw noJob(id);
        }
        if (reply instanceof CancelReply.Ended ended) {
            throw Refusal.conflict(
                            "job-ended",
                            "Job " + id + " has already ended (" + ended.state() + "); there is nothing to cancel.")
                    .with("state", ended.state().name());
        }
        return get(id);
    }

    /** The job type a job id names, or 404 when it names none. */
    String typeOf(String id) {
        return Optional.ofNullable(Ids.typeOfJob(id)).orElseThrow(() -> noJob(id));
    }

    Refusal noJob(String id) {
        return Refusal.noJob(id);
    }
}
