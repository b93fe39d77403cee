package dev.warmpool.protocol;

import java.util.List;

/**
 * The one place that names Redis keys, for the manager, the agent and the tests alike. The Lua
 * scripts build a pool's keys from {@link #prefix} with the same names ({@code key('job', id)});
 * KeySchemaTests holds the scripts, this class and the key table of docs/redis-keys.md to one another.
 *
 * <p>Every key of a pool carries the hash tag {@code {<type>}}, so each script touches one hash
 * slot and runs unchanged on Redis Cluster. What each key holds is in docs/redis-keys.md.
 */
public final class KeySchema {
    /** SET: the job types that have a pool. */
    public static final String POOLS = "wp:pools";
    /** STRING: the reconciler lock (the holder's id, with an expiry). */
    public static final String RECONCILE_LOCK = "wp:lock:reconcile";
    /** HASH: each pool's agent ACL password (the manager's alone). */
    public static final String AGENTS = "wp:agents";

    private KeySchema() {}

    /**
     * STRING: a dashboard session, named by the SHA-256 of the cookie's random value and holding
     * the SHA-256 of the API token it was opened with, with an expiry. No pool's: no agent reads it.
     */
    public static String uiSession(String sessionSha256) {
        return "wp:ui:session:" + sessionSha256;
    }

    /** Prefix of every key of the pool of {@code type}, hash tag included. */
    public static String prefix(String type) {
        return "wp:{" + type + "}:";
    }

    /** HASH: the pool's spec, state and sizing. */
    public static String pool(String type) {
        return prefix(type) + "pool";
    }

    /** SET: the pool's processor ids. */
    public static String processors(String type) {
        return prefix(type) + "procs";
    }

    /** HASH: one processor. */
    public static String processor(String type, String processorId) {
        return prefix(type) + "proc:" + processorId;
    }

    /** LIST: messages to a processor's agent. */
    public static String inbox(String type, String processorId) {
        return prefix(type) + "inbox:" + processorId;
    }

    /** ZSET: idle processors (gangs, in a gang pool) by idle-since. */
    public static String idle(String type) {
        return prefix(type) + "idle";
    }

    /**
     * ZSET: queued job ids by priority, then submission order, as stored before fair share; the
     * scripts move what they find here to {@link #tenantQueue} (on a pick or a pool update).
     */
    public static String queue(String type) {
        return prefix(type) + "queue";
    }

    /** SET: the pool's tenants that have jobs running or queued, or usage (fair share). */
    public static String tenants(String type) {
        return prefix(type) + "tenants";
    }

    /** HASH: one tenant of the pool: running jobs, decayed usage, processor-seconds in all. */
    public static String tenant(String type, String tenant) {
        return prefix(type) + "tenant:" + tenant;
    }

    /** ZSET: one tenant's queued job ids by priority, then submission order. */
    public static String tenantQueue(String type, String tenant) {
        return prefix(type) + "tq:" + tenant;
    }

    /** SET: the tenants that have jobs in their queue (a pick looks at these alone). */
    public static String waiting(String type) {
        return prefix(type) + "waiting";
    }

    /** ZSET: every job id of the pool by submission time. */
    public static String jobs(String type) {
        return prefix(type) + "jobs";
    }

    /**
     * CHANNEL (pub/sub, not a key): each job as it ends, published by the script that ends it:
     * its id, a newline and its hash as a flat JSON array {@code [field, value, ...]} (the id
     * alone when that would pass 8 KiB; lua/lib/ends.lua's {@code ended_message}); the manager
     * answers its waiters ({@code ?wait=}) from it. Pattern: {@link #ENDED_PATTERN}.
     */
    public static String ended(String type) {
        return prefix(type) + "ended";
    }

    /** The pattern of every pool's {@link #ended} channel. */
    public static final String ENDED_PATTERN = "wp:*:ended";

    /**
     * CHANNEL (pub/sub, not a key): a job's id after it started, went back to its queue, logged
     * or reported (its end goes on {@link #ended}); whoever follows the job reads its
     * {@link #jobEvents} and state again. Pattern: {@link #CHANGED_PATTERN}.
     */
    public static String changed(String type) {
        return prefix(type) + "changed";
    }

    /**
     * HASH: what the pool's learned keep-alive learns from, written by the scripts as jobs come
     * and go (lua/lib/warmth.lua; read by {@code dev.warmpool.policy.Warmth}): demand, per demand
     * level when it was last left and a histogram of the gaps until it was reached again, warm
     * and cold arrivals, processors' idle time.
     */
    public static String warmth(String type) {
        return prefix(type) + "warmth";
    }

    /** The pattern of every pool's {@link #changed} channel. */
    public static final String CHANGED_PATTERN = "wp:*:changed";

    /** HASH: one job. */
    public static String job(String type, String jobId) {
        return prefix(type) + "job:" + jobId;
    }

    /**
     * STREAM: what a job printed ({@code log} entries, one line each) and reported
     * ({@code report}), capped at about {@code warmpool.jobs.log-lines} entries; it expires with the job.
     */
    public static String jobEvents(String type, String jobId) {
        return job(type, jobId) + ":events";
    }

    /**
     * STRING: the processors the pool's running sweeps want (each its parallelism, at most its
     * trials), kept out of the pool hash because agents end sweeps and may only read that hash.
     */
    public static String demand(String type) {
        return prefix(type) + "demand";
    }

    /** STRING: the submission counter behind the queue order. */
    public static String sequence(String type) {
        return prefix(type) + "seq";
    }

    /** HASH: what an Idempotency-Key (by its SHA-256) created. */
    public static String idempotency(String type, String keySha256) {
        return prefix(type) + "idem:" + keySha256;
    }

    /** SET: a gang pool's gang ids. */
    public static String gangs(String type) {
        return prefix(type) + "gangs";
    }

    /** HASH: one gang. */
    public static String gang(String type, String gangId) {
        return prefix(type) + "gang:" + gangId;
    }

    /** ZSET: sweep ids by creation time. */
    public static String sweeps(String type) {
        return prefix(type) + "sweeps";
    }

    /**
     * HASH: the pool's running sweeps that a driver job feeds (sweep id to that job's id), for the
     * manager's look at their drivers (a sweep whose driver ended or is gone is ended).
     */
    public static String sweepDrivers(String type) {
        return prefix(type) + "drivers";
    }

    /** HASH: one sweep. */
    public static String sweep(String type, String sweepId) {
        return prefix(type) + "sweep:" + sweepId;
    }

    /** LIST: a sweep's trial job ids, in trial order. */
    public static String sweepTrials(String type, String sweepId) {
        return sweep(type, sweepId) + ":trials";
    }

    /** LIST: a sweep's trials not yet released. */
    public static String sweepPending(String type, String sweepId) {
        return sweep(type, sweepId) + ":pending";
    }

    /** HASH: a running trial's reported objective by step. */
    public static String sweepTrial(String type, String sweepId, String jobId) {
        return sweep(type, sweepId) + ":trial:" + jobId;
    }

    /** ZSET: completed trials' objective at a step (the median rule). */
    public static String sweepAt(String type, String sweepId, String step) {
        return sweep(type, sweepId) + ":at:" + step;
    }

    /** SET: the steps that have a {@link #sweepAt} set. */
    public static String sweepSteps(String type, String sweepId) {
        return sweep(type, sweepId) + ":steps";
    }

    /** LIST: an external sweep's journal, appended by its driver (an Optuna study's log: {@code POST /sweeps/{id}/journal}). */
    public static String sweepJournal(String type, String sweepId) {
        return sweep(type, sweepId) + ":journal";
    }

    /** HASH: an external sweep's trials by the key its driver gave each (a trial added twice under one key is one trial). */
    public static String sweepKeys(String type, String sweepId) {
        return sweep(type, sweepId) + ":keys";
    }

    /** Every key, as docs/redis-keys.md writes it ({@code wp:{type}:proc:{id}}). */
    public static List<String> patterns() {
        String t = "type";
        return List.of(
                POOLS,
                pool(t),
                processors(t),
                processor(t, "{id}"),
                inbox(t, "{id}"),
                idle(t),
                queue(t),
                tenants(t),
                tenant(t, "{tenant}"),
                tenantQueue(t, "{tenant}"),
                waiting(t),
                jobs(t),
                warmth(t),
                job(t, "{jobId}"),
                jobEvents(t, "{jobId}"),
                sequence(t),
                demand(t),
                idempotency(t, "{sha256}"),
                gangs(t),
                gang(t, "{id}"),
                sweeps(t),
                sweepDrivers(t),
                sweep(t, "{id}"),
                sweepTrials(t, "{id}"),
                sweepPending(t, "{id}"),
                sweepTrial(t, "{id}", "{jobId}"),
                sweepAt(t, "{id}", "{step}"),
                sweepSteps(t, "{id}"),
                sweepJournal(t, "{id}"),
                sweepKeys(t, "{id}"),
                AGENTS,
                RECONCILE_LOCK,
                uiSession("{sha256}"));
    }
}
