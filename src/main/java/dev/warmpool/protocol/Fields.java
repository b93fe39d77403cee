package dev.warmpool.protocol;

import java.util.List;

/**
 * The fields of the hashes in Redis, by key (see {@link KeySchema}): the names Java reads and
 * writes, and the ones the Lua scripts write. the ScriptContract tests (store/*ScriptContractTests) hold every field the scripts
 * leave in a hash to this list, so a field renamed on one side fails there.
 */
public final class Fields {
    private Fields() {}

    /** {@link KeySchema#job}: one job (a sweep's trial too). */
    public static final class JobHash {
        public static final String ID = "id",
                TYPE = "type",
                STATE = "state",
                PRIORITY = "priority",
                SCORE = "score",
                ATTEMPTS = "attempts",
                MAX_ATTEMPTS = "maxAttempts",
                COMPLETIONS = "completions",
                TIMEOUT_SECONDS = "timeoutSeconds",
                PROCESSOR = "processor",
                TOKEN = "token",
                ARGS = "args",
                CONFIG = "config",
                ENV = "env",
                SUBMITTED_BY = "submittedBy",
                SUBMITTED_AT = "submittedAt",
                ASSIGNED_AT = "assignedAt",
                STARTED_AT = "startedAt",
                FINISHED_AT = "finishedAt",
                EXIT_CODE = "exitCode",
                METRICS = "metrics",
                LOG_TAIL = "logTail",
                ERROR = "error",
                PROGRESS = "progress",
                SWEEP = "sweep",
                TRIAL = "trial";
        /** When a job last joined its queue after it was stored: a sweep trial released, a job requeued (its queue wait counts from there). */
        public static final String QUEUED_AT = "queuedAt";
        /** Who the job counts for in its pool's fair share: its submitter, or the pool's group of it. */
        public static final String TENANT = "tenant";
        /** While the job holds a processor: since when its tenant is charged for it (ms); gone once it gives it back. */
        public static final String CHARGED_FROM = "chargedFrom";
        /**
         * A server-side sweep's driver job's: the token its API calls carry (auth/DriverTokens; handed to the
         * job by its agent with the way to the API, never shown in a view), and the sweep it drives.
         */
        public static final String API_TOKEN = "apiToken", DRIVER_OF = "driverOf";
        /** A gang job's member outcomes: {@code member:<role>-<index>}, e.g. "SUCCEEDED (exit 0)". */
        public static final String MEMBER_PREFIX = "member:";

        public static final List<String> ALL = List.of(
                ID,
                TYPE,
                STATE,
                PRIORITY,
                SCORE,
                ATTEMPTS,
                MAX_ATTEMPTS,
                COMPLETIONS,
                TIMEOUT_SECONDS,
                PROCESSOR,
                TOKEN,
                ARGS,
                CONFIG,
                ENV,
                SUBMITTED_BY,
                SUBMITTED_AT,
                ASSIGNED_AT,
                STARTED_AT,
                FINISHED_AT,
                EXIT_CODE,
                METRICS,
                LOG_TAIL,
                ERROR,
                PROGRESS,
                SWEEP,
                TRIAL,
                QUEUED_AT,
                TENANT,
                CHARGED_FROM,
                API_TOKEN,
                DRIVER_OF);

        private JobHash() {}
    }

    /** {@link KeySchema#processor}: one processor (a gang member too). */
    public static final class ProcessorHash {
        public static final String ID = "id",
                STATE = "state",
                JOB = "job",
                TOKEN = "token",
                SINCE = "since",
                HEARTBEAT = "hb",
                STARTED_AT = "startedAt",
                REGISTERED_AT = "registeredAt",
                PID = "pid",
                HOST = "host",
                ADDRESS = "addr",
                GANG = "gang",
                ROLE = "role",
                RANK = "rank";
        /**
         * While BUSY: when its job must have ended (ms), the start plus the job's timeout; 0 before
         * the job starts there, or for a job without a timeout (overdue.lua).
         */
        public static final String DEADLINE = "deadline";
        /**
         * While STARTING: why its agent cannot serve (start_failed.lua), which lost.lua makes the
         * pool's {@link PoolHash#START_ERROR} when the agent has gone.
         */
        public static final String START_ERROR = "startError";
        /**
         * The first job it started (set once, start.lua): a sweep's trial that it is, queued before the
         * processor was started, is one cold start of the sweep.
         */
        public static final String FIRST_JOB = "firstJob";
        /**
         * The sweep whose trial it ran last, and when that trial ended (ms; lib/ends.lua): idle from that very
         * moment, it waits for that sweep, whose next trial it takes counts the wait as the sweep's idleMs.
         */
        public static final String LAST_SWEEP = "lastSweep", LAST_SWEEP_AT = "lastSweepAt";

        public static final List<String> ALL = List.of(
                ID,
                STATE,
                JOB,
                TOKEN,
                SINCE,
                HEARTBEAT,
                STARTED_AT,
                REGISTERED_AT,
                PID,
                HOST,
                ADDRESS,
                GANG,
                ROLE,
                RANK,
                DEADLINE,
                START_ERROR,
                FIRST_JOB,
                LAST_SWEEP,
                LAST_SWEEP_AT);

        private ProcessorHash() {}
    }

    /** {@link KeySchema#gang}: one gang. */
    public static final class GangHash {
        /** {@code members}: the member ids, comma-separated; {@code lead}: the member whose end ends a job; {@code left},
         * {@code workersLeft}: members (workers) of the current job not yet ended. */
        public static final String ID = "id",
                STATE = "state",
                JOB = "job",
                TOKEN = "token",
                SINCE = "since",
                STARTED_AT = "startedAt",
                MEMBERS = "members",
                LEAD = "lead",
                LEFT = "left",
                WORKERS_LEFT = "workersLeft";

        public static final List<String> ALL =
                List.of(ID, STATE, JOB, TOKEN, SINCE, STARTED_AT, MEMBERS, LEAD, LEFT, WORKERS_LEFT);

        private GangHash() {}
    }

    /** {@link KeySchema#pool}: a pool's spec as PUT, and what the scripts read of it without parsing it. */
    public static final class PoolHash {
        public static final String SPEC = "spec",
                STATE = "state",
                MIN_IDLE = "minIdle",
                MAX_SIZE = "maxSize",
                IDLE_TIMEOUT_MS = "idleTimeoutMs",
                COMMAND = "command",
                ENV = "env",
                MAX_QUEUED = "maxQueued",
                GANG = "gang",
                FAIR = "fair",
                SWEEP_DEMAND = "sweepDemand",
                RUNNABLE = "runnable",
                START_ERROR = "startError",
                START_ERROR_AT = "startErrorAt",
                CREATED_AT = "createdAt",
                UPDATED_AT = "updatedAt";
        public static final List<String> ALL = List.of(
                SPEC,
                STATE,
                MIN_IDLE,
                MAX_SIZE,
                IDLE_TIMEOUT_MS,
                COMMAND,
                ENV,
                MAX_QUEUED,
                GANG,
                FAIR,
                SWEEP_DEMAND,
                RUNNABLE,
                START_ERROR,
                START_ERROR_AT,
                CREATED_AT,
                UPDATED_AT);

        private PoolHash() {}
    }

    /** {@link KeySchema#sweep}: one sweep, its settings and its counts. */
    public static final class SweepHash {
        public static final String ID = "id",
                TYPE = "type",
                STATE = "state",
                SPEC = "spec",
                PARALLELISM = "parallelism",
                METRIC = "metric",
                GOAL = "goal",
                MAX_FAILED_TRIALS = "maxFailedTrials",
                EARLY_STOPPING = "earlyStopping",
                MIN_STEPS = "minSteps",
                MIN_TRIALS = "minTrials",
                SUBMITTED_BY = "submittedBy",
                CREATED_AT = "createdAt",
                FINISHED_AT = "finishedAt",
                ERROR = "error",
                TOTAL = "total",
                DEMAND = "demand",
                ACTIVE = "active",
                DONE = "done",
                SUCCEEDED = "succeeded",
                FAILED = "failed",
                CANCELLED = "cancelled",
                EARLY_STOPPED = "earlyStopped",
                BEST_TRIAL = "bestTrial",
                BEST_VALUE = "bestValue",
                WARNINGS = "warnings",
                OBJECTIVE_SEEN = "objectiveSeen",
                OBJECTIVE_MISSING = "objectiveMissing",
                TENANT = "tenant",
                /** ms its trials ran, started to their end, summed as each ends (lib/ends.lua end_job). */
                BUSY_MS = "busyMs",
                /** Trials released when no idle processor took them (lib/ends.lua sweep_release; the pool's 'cold'). */
                COLD_STARTS = "coldStarts",
                /** ms processors stayed idle between two of its trials (lib/ends.lua sweep_idle_held). */
                IDLE_MS = "idleMs",
                /**
                 * An external sweep's: the job fields every trial its driver adds gets (a flat JSON array of
                 * field, value pairs: priority, timeout, attempts, args, env, submitter); absent on other sweeps.
                 */
                TRIAL_FIELDS = "trialFields",
                /** A server-side sweep's: its driver job's id. */
                DRIVER = "driver",
                /** A server-side sweep's: the hex SHA-256 of its driver token's secret (auth/DriverTokens). */
                DRIVER_TOKEN = "driverToken",
                /** An external sweep's: bytes of entries its journal holds, and the id of the last append (sweep_journal.lua). */
                JOURNAL_BYTES = "journalBytes",
                JOURNAL_LAST = "journalLast";
        public static final List<String> ALL = List.of(
                ID,
                TYPE,
                STATE,
                SPEC,
                PARALLELISM,
                METRIC,
                GOAL,
                MAX_FAILED_TRIALS,
                EARLY_STOPPING,
                MIN_STEPS,
                MIN_TRIALS,
                SUBMITTED_BY,
                CREATED_AT,
                FINISHED_AT,
                ERROR,
                TOTAL,
                DEMAND,
                ACTIVE,
                DONE,
                SUCCEEDED,
                FAILED,
                CANCELLED,
                EARLY_STOPPED,
                BEST_TRIAL,
                BEST_VALUE,
                WARNINGS,
                OBJECTIVE_SEEN,
                OBJECTIVE_MISSING,
                TENANT,
                BUSY_MS,
                COLD_STARTS,
                IDLE_MS,
                TRIAL_FIELDS,
                DRIVER,
                DRIVER_TOKEN,
                JOURNAL_BYTES,
                JOURNAL_LAST);

        private SweepHash() {}
    }

    /**
     * {@link KeySchema#tenant}: one tenant of a pool (lua/lib/tenants.lua): jobs holding a processor,
     * usage (processor-seconds, decayed by the pool's half-life as of {@code usageAt}, ms) and the
     * processor-seconds held in all ({@code seconds}, never decayed); its sweeps' cost summed (docs/sweeps.md):
     * their trials' run time ({@code sweepMs}), cold starts and the idle time they held ({@code sweepIdleMs}).
     */
    public static final class TenantHash {
        public static final String RUNNING = "running", USAGE = "usage", USAGE_AT = "usageAt", SECONDS = "seconds";
        public static final String SWEEP_MS = "sweepMs",
                SWEEP_COLD_STARTS = "sweepColdStarts",
                SWEEP_IDLE_MS = "sweepIdleMs";
        public static final List<String> ALL =
                List.of(RUNNING, USAGE, USAGE_AT, SECONDS, SWEEP_MS, SWEEP_COLD_STARTS, SWEEP_IDLE_MS);

        private TenantHash() {}
    }
}
