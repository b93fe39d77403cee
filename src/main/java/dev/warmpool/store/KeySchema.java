package dev.warmpool.store;

/**
 * The one place that names Redis keys (the Lua scripts build the per-pool ones from {@link #prefix}).
 *
 * <p>Every key of a pool carries the hash tag {@code {<type>}}, so each script touches one hash
 * slot and runs unchanged on Redis Cluster:
 * <pre>
 * wp:pools                    SET   the job types that have a pool
 * wp:{type}:pool              HASH  spec (JSON), state ACTIVE|DRAINING, minIdle, maxSize, ...
 * wp:{type}:procs             SET   processor ids of the pool
 * wp:{type}:proc:{id}         HASH  state, job, token, since, hb (heartbeat), pid, host; a gang member: gang, role, rank, addr
 * wp:{type}:inbox:{id}        LIST  messages to the agent: "job ID TOKEN", "cancel ID TOKEN", "retire"
 * wp:{type}:idle              ZSET  idle processor ids, scored by idle-since (ms)
 * wp:{type}:queue             ZSET  queued job ids, scored by priority, then submission order
 * wp:{type}:jobs              ZSET  every job id of the pool, scored by submission time (listing)
 * wp:{type}:job:{jobId}       HASH  the job; it expires a retention period after it ends
 * wp:{type}:seq               STRING the submission counter behind the queue order
 * wp:{type}:idem:{sha256}     HASH  job (or sweep) and request fingerprint of an Idempotency-Key (expires after 24 h)
 * wp:{type}:gangs             SET   gang ids of a gang pool (its idle set holds gang ids, not member ids)
 * wp:{type}:gang:{id}         HASH  state, members (member processor ids), lead, job, token, left, workersLeft
 * wp:{type}:sweeps            ZSET  sweep ids, scored by creation time (listing)
 * wp:{type}:sweep:{id}        HASH  state, parallelism, active, done, total, counts, objective, best trial
 * wp:{type}:sweep:{id}:trials LIST  the trials' job ids, in trial order
 * wp:{type}:sweep:{id}:pending LIST trials not yet released to the queue (parallelism holds them back)
 * wp:{type}:sweep:{id}:trial:{jobId} HASH step -> objective, a running trial's reported curve
 * wp:{type}:sweep:{id}:at:{step} ZSET completed trials' objective at a step (the median rule)
 * wp:{type}:sweep:{id}:steps  SET   the steps that have an at:{step} set
 * wp:lock:reconcile           STRING the reconciler lock (the holder's id, with an expiry)
 * </pre>
 */
public final class KeySchema {
    public static final String POOLS = "wp:pools";
    public static final String RECONCILE_LOCK = "wp:lock:reconcile";

    private KeySchema() {
    }

    /** Prefix of every key of the pool of {@code type}, hash tag included. */
    public static String prefix(String type) {
        return "wp:{" + type + "}:";
    }

    public static String pool(String type) {
        return prefix(type) + "pool";
    }

    public static String job(String type, String jobId) {
        return prefix(type) + "job:" + jobId;
    }

    public static String sweep(String type, String sweepId) {
        return prefix(type) + "sweep:" + sweepId;
    }

    public static String inbox(String type, String processorId) {
        return prefix(type) + "inbox:" + processorId;
    }

    public static String processor(String type, String processorId) {
        return prefix(type) + "proc:" + processorId;
    }

    public static String queue(String type) {
        return prefix(type) + "queue";
    }
}
