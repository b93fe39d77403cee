package dev.warmpool.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.policy.FairShare;
import dev.warmpool.policy.PoolSnapshot;
import dev.warmpool.policy.Warmth;
import dev.warmpool.pool.Job;
import dev.warmpool.pool.JobEvent;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.pool.Processor;
import dev.warmpool.protocol.Fields.PoolHash;
import dev.warmpool.protocol.JobState;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.protocol.script.BatchReply;
import dev.warmpool.protocol.script.CancelReply;
import dev.warmpool.protocol.script.Idempotency;
import dev.warmpool.protocol.script.ListJobsReply;
import dev.warmpool.protocol.script.LostReply;
import dev.warmpool.protocol.script.NewJob;
import dev.warmpool.protocol.script.OverdueReply;
import dev.warmpool.protocol.script.PoolDeleteReply;
import dev.warmpool.protocol.script.PoolGcReply;
import dev.warmpool.protocol.script.PoolPutReply;
import dev.warmpool.protocol.script.Replies;
import dev.warmpool.protocol.script.RetireReply;
import dev.warmpool.protocol.script.Script;
import dev.warmpool.protocol.script.SnapshotReply;
import dev.warmpool.protocol.script.SpawnGangReply;
import dev.warmpool.protocol.script.SpawnReply;
import dev.warmpool.protocol.script.StatsReply;
import dev.warmpool.protocol.script.SubmitReply;
import dev.warmpool.protocol.script.SweepAddReply;
import dev.warmpool.protocol.script.SweepCancelReply;
import dev.warmpool.protocol.script.SweepGetReply;
import dev.warmpool.protocol.script.SweepJournalReply;
import dev.warmpool.protocol.script.SweepListReply;
import dev.warmpool.protocol.script.SweepPutReply;
import dev.warmpool.protocol.script.TenantsReply;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.RedisAPI;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The manager's view of Redis: every change is one script (see {@link Script}), every read one
 * round trip. Knows the key layout through {@link KeySchema} only.
 */
@ApplicationScoped
public class PoolStore {
    private final ScriptRunner scripts;
    private final RedisAPI redis;
    private final ObjectMapper json;
    /** The submit script's round trip, as the manager sees it: {@code warmpool_dispatch_seconds}. */
    private final Timer dispatch;

    public PoolStore(ScriptRunner scripts, RedisAPI redis, ObjectMapper json, MeterRegistry registry) {
        this.scripts = scripts;
        this.redis = redis;
        this.json = json;
        this.dispatch = Timer.builder("warmpool.dispatch")
                .description("The submit script (store a job, hand it to a warm processor or queue it), round trip")
                .register(registry);
    }

    /** Creates or updates a pool; true when it was created. */
    public Uni<Boolean> putPool(String type, PoolSpec spec) {
        // the type joins the set first (a crash before the script leaves a name without a pool,
        // which the reconciler drops after a grace period) and again after the script: a
        // reconciler that saw the name without its pool in between cannot have dropped it for good
        return redis.sadd(List.of(KeySchema.POOLS, type))
                .flatMap(x -> scripts.run(
                        Script.POOL_PUT,
                        type,
                        PoolPutReply.args(
                                write(spec),
                                spec.minIdle(),
                                spec.maxSize(),
                                spec.idleTimeoutSeconds() * 1000L,
                                write(spec.command()),
                                write(spec.env()),
                                spec.maxQueued(),
                                spec.isGang(),
                                write(FairShare.settings(spec)))))
                .map(reply -> switch (PoolPutReply.decode(reply)) {
                    case GANG_CHANGE -> throw new GangChange();
                    case CREATED -> true;
                    case UPDATED -> false;
                })
                .call(created -> redis.sadd(List.of(KeySchema.POOLS, type)));
    }

    /** The update would turn a pool into a gang pool or back. */
    public static final class GangChange extends RuntimeException {
        GangChange() {
            super("gang change", null, false, false);
        }
    }

    /** Drains a pool (pool_delete.lua). */
    public Uni<PoolDeleteReply> deletePool(String type, String reason, long retentionSeconds) {
        return scripts.run(Script.POOL_DELETE, type, PoolDeleteReply.args(reason, retentionSeconds))
                .map(PoolDeleteReply::decode);
    }

    /** Removes a drained pool whose processors are all gone; true when it did. */
    public Uni<Boolean> collectPool(String type, long retentionSeconds) {
        return scripts.run(Script.POOL_GC, type, PoolGcReply.args(retentionSeconds))
                .map(PoolGcReply::decode)
                .flatMap(reply -> reply.collected()
                        ? forget(type).replaceWith(true)
                        : Uni.createFrom().item(false));
    }

    /**
     * Drops a type from the set of pools, unless its pool exists (again): the pool's hash and the
     * set live in different slots on Redis Cluster, so this is a check, then the removal.
     */
    public Uni<Void> forget(String type) {
        return redis.exists(List.of(KeySchema.pool(type)))
                .flatMap(n -> n != null && n.toLong() > 0
                        ? Uni.createFrom().voidItem()
                        : redis.srem(List.of(KeySchema.POOLS, type)).replaceWithVoid());
    }

    public Uni<List<String>> types() {
        return redis.smembers(KeySchema.POOLS)
                .map(r -> Replies.list(ScriptRunner.plain(r)).stream()
                        .map(Replies::string)
                        .sorted()
                        .toList());
    }

    public Uni<Optional<PoolSnapshot>> snapshot(String type) {
        return scripts.run(Script.SNAPSHOT, type, SnapshotReply.args())
                .map(SnapshotReply::decode)
                .map(reply -> {
                    if (!(reply instanceof SnapshotReply.Pool p)) {
                        return Optional.empty();
                    }
                    return Optional.of(new PoolSnapshot(
                            type,
                            read(p.pool().get(PoolHash.SPEC), PoolSpec.class),
                            !"ACTIVE".equals(p.pool().get(PoolHash.STATE)),
                            p.queued(),
                            p.now(),
                            p.processors().stream().map(Processor::of).toList(),
                            Math.max(0, Integer.parseInt(p.pool().getOrDefault(PoolHash.SWEEP_DEMAND, "0"))),
                            p.gangs().stream().map(Processor::of).toList(),
                            Warmth.History.of(p.warmth()),
                            p.idleNowMs(),
                            Integer.parseInt(p.pool().getOrDefault(PoolHash.RUNNABLE, String.valueOf(p.queued()))),
                            startError(p.pool())));
                });
    }

    /** Why a processor of the pool was last lost before it registered (lost.lua), or null. */
    private static PoolSnapshot.StartError startError(Map<String, String> pool) {
        return startError(pool.get(PoolHash.START_ERROR), pool.get(PoolHash.START_ERROR_AT));
    }

    private static PoolSnapshot.StartError startError(String reason, String at) {
        return reason == null || at == null
                ? null
                : new PoolSnapshot.StartError(reason, Instant.ofEpochMilli(Long.parseLong(at)));
    }

    /**
     * The pool's last start error (lost.lua), or null: its two fields alone, one round trip, cheap
     * enough for each re-read of a job that a waiter holds (whether it is current needs the
     * processors: {@link PoolSnapshot#currentStartError()}).
     */
    public Uni<PoolSnapshot.StartError> lastStartError(String type) {
        return redis.hmget(List.of(KeySchema.pool(type), PoolHash.START_ERROR, PoolHash.START_ERROR_AT))
                .map(r -> r == null || r.size() < 2
                        ? null
                        : startError(
                                r.get(0) == null ? null : r.get(0).toString(),
                                r.get(1) == null ? null : r.get(1).toString()));
    }

    /** A pool's tenants (tenants.lua): weight, cap, running, queued, decayed usage, share. */
    public Uni<TenantsReply> tenants(String type) {
        return scripts.run(Script.TENANTS, type, TenantsReply.args()).map(TenantsReply::decode);
    }

    /** One pool's counts for a scrape (stats.lua): no processor rows, no warmth histograms. */
    public Uni<StatsReply> stats(String type) {
        return scripts.run(Script.STATS, type, StatsReply.args()).map(StatsReply::decode);
    }

    /** Stores a job and assigns it to an idle processor or queues it, in one step (submit.lua). */
    public Uni<SubmitReply> submit(String type, NewJob job, Idempotency idem) {
        long t0 = System.nanoTime();
        return scripts.run(Script.SUBMIT, type, SubmitReply.args(job, idem))
                .map(SubmitReply::decode)
                .invoke(r -> dispatch.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS));
    }

    /** Stores a batch of jobs of one pool and assigns or queues each, all or none (submit_batch.lua). */
    public Uni<BatchReply> submitBatch(String type, List<NewJob> jobs, Idempotency idem) {
        return scripts.run(Script.SUBMIT_BATCH, type, BatchReply.args(jobs, idem))
                .map(BatchReply::decode);
    }

    /** Cancels a job (cancel.lua): it ends in {@code end}, CANCELLED or EARLY_STOPPED. */
    public Uni<CancelReply> cancel(String type, String jobId, String reason, long retentionSeconds, JobState end) {
        return scripts.run(Script.CANCEL, type, CancelReply.args(jobId, reason, retentionSeconds, end))
                .map(CancelReply::decode);
    }

    /** The pool's spec as it was PUT, or empty when there is no such pool. */
    public Uni<Optional<PoolSpec>> spec(String type) {
        return redis.hget(KeySchema.pool(type), PoolHash.SPEC).map(r -> {
            if (r == null) {
                return Optional.<PoolSpec>empty();
            }
            try {
                return Optional.of(json.readValue(r.toString(), PoolSpec.class));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(
                        "pool " + type + " has a spec that does not parse: " + e.getOriginalMessage(), e);
            }
        });
    }

    public Uni<Optional<Job>> job(String type, String jobId) {
        return redis.hgetall(KeySchema.job(type, jobId)).map(r -> {
            Map<String, String> h = Replies.hash(ScriptRunner.plain(r));
            return h.isEmpty() ? Optional.<Job>empty() : Optional.of(Job.from(h, json));
        });
    }

    /**
     * Up to {@code count} entries of a job's event stream after the id {@code afterId} (all from
     * the start when it is null), oldest first.
     */
    public Uni<List<JobEvent>> jobEvents(String type, String jobId, String afterId, int count) {
        String start = afterId == null ? "-" : "(" + afterId;
        return redis.xrange(List.of(KeySchema.jobEvents(type, jobId), start, "+", "COUNT", Integer.toString(count)))
                .map(r -> {
                    List<JobEvent> out = new ArrayList<>();
                    for (Object entry : Replies.list(ScriptRunner.plain(r))) {
                        List<Object> e = Replies.list(entry);
                        List<Object> fields = Replies.list(e.get(1));
                        for (int i = 0; i + 1 < fields.size(); i += 2) {
                            out.add(new JobEvent(
                                    Replies.string(e.get(0)),
                                    Replies.string(fields.get(i)),
                                    Replies.string(fields.get(i + 1))));
                        }
                    }
                    return out;
                });
    }

    public Uni<List<Job>> jobs(String type, JobState state, int limit) {
        return jobs(type, state, limit, "");
    }

    /** The jobs of a pool, newest first; or, with a sweep id, that sweep's trials in trial order (list_jobs.lua). */
    public Uni<List<Job>> jobs(String type, JobState state, int limit, String sweepId) {
        return scripts.run(Script.LIST_JOBS, type, ListJobsReply.args(state, limit, sweepId))
                .map(reply -> ListJobsReply.decode(reply).jobs().stream()
                        .map(h -> Job.from(h, json))
                        .toList());
    }

    /**
     * Stores a sweep and its trials and releases the first of them (see sweep_put.lua): the
     * sweep's fields, the fields every trial shares, and each trial's id and config JSON.
     */
    public Uni<SweepPutReply> putSweep(
            String type,
            String sweepId,
            Idempotency idem,
            int priority,
            Map<String, String> sweep,
            Map<String, String> shared,
            Map<String, String> trials) {
        return scripts.run(Script.SWEEP_PUT, type, SweepPutReply.args(sweepId, idem, priority, sweep, shared, trials))
                .map(SweepPutReply::decode);
    }

    /** A sweep's hash and its trials' fields (sweep_get.lua). */
    public Uni<SweepGetReply> sweep(String type, String sweepId) {
        return scripts.run(Script.SWEEP_GET, type, SweepGetReply.args(sweepId)).map(SweepGetReply::decode);
    }

    /** The newest sweeps of a pool, newest first, as hashes (sweep_list.lua). */
    public Uni<List<Map<String, String>>> sweeps(String type, int limit) {
        return scripts.run(Script.SWEEP_LIST, type, SweepListReply.args(limit))
                .map(r -> SweepListReply.decode(r).sweeps());
    }

    /** Adds a trial to an external sweep (sweep_add.lua). */
    public Uni<SweepAddReply> addTrial(
            String type,
            String sweepId,
            String configJson,
            long retentionSeconds,
            String key,
            String caller,
            boolean admin) {
        return scripts.run(
                        Script.SWEEP_ADD,
                        type,
                        SweepAddReply.args(sweepId, configJson, retentionSeconds, key, caller, admin))
                .map(SweepAddReply::decode);
    }

    /** Appends entries to an external sweep's journal (sweep_journal.lua). */
    public Uni<SweepJournalReply> appendJournal(
            String type,
            String sweepId,
            String caller,
            boolean admin,
            long most,
            long mostBytes,
            String appendId,
            List<String> entries) {
        return scripts.run(
                        Script.SWEEP_JOURNAL,
                        type,
                        SweepJournalReply.appendArgs(sweepId, caller, admin, most, mostBytes, appendId, entries))
                .map(SweepJournalReply::decode);
    }

    /** Reads an external sweep's journal from {@code from}, at most {@code limit} entries (sweep_journal.lua). */
    public Uni<SweepJournalReply> readJournal(
            String type, String sweepId, String caller, boolean admin, long from, int limit) {
        return scripts.run(Script.SWEEP_JOURNAL, type, SweepJournalReply.readArgs(sweepId, caller, admin, from, limit))
                .map(SweepJournalReply::decode);
    }

    /** The pool's running sweeps that a driver job feeds: sweep id to its driver's job id. */
    public Uni<Map<String, String>> sweepDrivers(String type) {
        return redis.hgetall(KeySchema.sweepDrivers(type)).map(r -> Replies.hash(ScriptRunner.plain(r)));
    }

    /**
     * Enters a running sweep that names a driver job but has no entry in the pool's drivers hash (an older build
     * stored it); one key. Should the sweep have ended meanwhile, the next look at it removes the entry.
     */
    public Uni<Void> noteSweepDriver(String type, String sweepId, String driverJob) {
        return redis.hset(List.of(KeySchema.sweepDrivers(type), sweepId, driverJob))
                .replaceWithVoid();
    }

    /** Cancels a sweep (sweep_cancel.lua). */
    public Uni<SweepCancelReply> cancelSweep(String type, String sweepId, String reason, long retentionSeconds) {
        return scripts.run(Script.SWEEP_CANCEL, type, SweepCancelReply.args(sweepId, reason, retentionSeconds))
                .map(SweepCancelReply::decode);
    }

    /** Records a processor about to be started; false when the pool is full or draining. */
    public Uni<Boolean> spawn(String type, String processorId) {
        return scripts.run(Script.SPAWN, type, SpawnReply.args(processorId))
                .map(r -> SpawnReply.decode(r).recorded());
    }

    /** Records a gang about to be started; false when the pool is full or draining. */
    public Uni<Boolean> spawnGang(String type, String gangId, List<SpawnGangReply.Member> members) {
        return scripts.run(Script.SPAWN_GANG, type, SpawnGangReply.args(gangId, members))
                .map(r -> SpawnGangReply.decode(r).recorded());
    }

    public Uni<Boolean> retire(String type, String processorId, long idleSinceAtMost) {
        return scripts.run(Script.RETIRE, type, RetireReply.args(processorId, idleSinceAtMost))
                .map(r -> RetireReply.decode(r).retired());
    }

    /** Removes a lost processor and requeues its job (lost.lua). */
    public Uni<LostReply> lost(
            String type, String processorId, long heartbeatDeadline, String reason, long retentionSeconds) {
        return scripts.run(Script.LOST, type, LostReply.args(processorId, heartbeatDeadline, reason, retentionSeconds))
                .map(LostReply::decode);
    }

    /** Ends (or requeues) the job of a processor past its deadline and removes the processor (overdue.lua). */
    public Uni<OverdueReply> overdue(
            String type,
            String processorId,
            String jobId,
            long since,
            long deadline,
            String reason,
            long retentionSeconds) {
        return scripts.run(
                        Script.OVERDUE,
                        type,
                        OverdueReply.args(processorId, jobId, since, deadline, reason, retentionSeconds))
                .map(OverdueReply::decode);
    }

    /** Redis's clock and when the server started, both in its epoch milliseconds. */
    public record Clock(long now, long startedAt) {}

    public Uni<Clock> clock() {
        return Uni.combine()
                .all()
                .unis(redis.time(), redis.info(List.of("server")))
                .asTuple()
                .map(t -> {
                    long now = Long.parseLong(t.getItem1().get(0).toString()) * 1000
                            + Long.parseLong(t.getItem1().get(1).toString()) / 1000;
                    long uptime = 0;
                    for (String line : t.getItem2().toString().split("\r?\n")) {
                        if (line.startsWith("uptime_in_seconds:")) {
                            uptime = Long.parseLong(line.substring("uptime_in_seconds:".length())
                                    .trim());
                        }
                    }
                    return new Clock(now, now - uptime * 1000);
                });
    }

    /** Takes the reconciler lock for {@code ttlMillis}; true when this holder has it. */
    public Uni<Boolean> tryLock(String holder, long ttlMillis) {
        return redis.set(List.of(KeySchema.RECONCILE_LOCK, holder, "NX", "PX", Long.toString(ttlMillis)))
                .map(r -> r != null && "OK".equals(r.toString()));
    }

    /** Releases the lock if this holder still has it (one key, so a plain compare-and-delete). */
    public Uni<Void> unlock(String holder) {
        String cad = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";
        return redis.eval(List.of(cad, "1", KeySchema.RECONCILE_LOCK, holder)).replaceWithVoid();
    }

    public String write(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private <T> T read(String text, Class<T> type) {
        try {
            return json.readValue(text, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored pool spec is not JSON: " + text, e);
        }
    }
}
