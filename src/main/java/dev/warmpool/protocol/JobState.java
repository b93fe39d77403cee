package dev.warmpool.protocol;

/**
 * The states of a job, as the Lua scripts write them: {@code PENDING -> QUEUED -> ASSIGNED ->
 * RUNNING -> SUCCEEDED | FAILED | CANCELLED | TIMED_OUT | EARLY_STOPPED}, and
 * {@code ASSIGNED | RUNNING -> QUEUED} when the processor is lost or stops and attempts remain.
 * The scripts alone move jobs; JobStatesTests holds their end states (lib/core.lua's {@code ended},
 * the protocol's own list) to {@link #ended()}. Above the protocol this is the one list: the API
 * shows it as a job's {@code ended} ({@code pool.Job#ended()}), which the dashboard and the clients read.
 */
public enum JobState {
    /** PENDING: a sweep's trial held back by the sweep's parallelism. */
    PENDING,
    QUEUED,
    ASSIGNED,
    RUNNING,
    SUCCEEDED,
    FAILED,
    CANCELLED,
    TIMED_OUT,
    /** A sweep's trial stopped by the median rule. */
    EARLY_STOPPED;

    /** A final state: the job runs no more and no script moves it again. */
    public boolean ended() {
        return this == SUCCEEDED || this == FAILED || this == CANCELLED || this == TIMED_OUT || this == EARLY_STOPPED;
    }

    public static JobState parse(String s) {
        return s == null || s.isEmpty() ? null : valueOf(s);
    }
}
