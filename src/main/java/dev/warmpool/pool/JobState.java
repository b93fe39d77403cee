package dev.warmpool.pool;

import java.util.EnumSet;
import java.util.Set;

/**
 * The life of a job, written down once; the Lua scripts make the same moves and refuse others.
 * {@code ASSIGNED | RUNNING -> QUEUED} happens when the processor is lost or stops and attempts remain.
 */
public enum JobState {
    /** PENDING: a sweep's trial held back by the sweep's parallelism. */
    PENDING, QUEUED, ASSIGNED, RUNNING, SUCCEEDED, FAILED, CANCELLED, TIMED_OUT,
    /** A sweep's trial stopped by the median rule. */
    EARLY_STOPPED;

    public boolean ended() {
        return this == SUCCEEDED || this == FAILED || this == CANCELLED || this == TIMED_OUT || this == EARLY_STOPPED;
    }

    /** The states this one may move to. */
    public Set<JobState> next() {
        return switch (this) {
            case PENDING -> EnumSet.of(QUEUED, CANCELLED);
            case QUEUED -> EnumSet.of(ASSIGNED, CANCELLED, FAILED);
            case ASSIGNED -> EnumSet.of(RUNNING, QUEUED, CANCELLED, FAILED);
            case RUNNING -> EnumSet.of(SUCCEEDED, FAILED, CANCELLED, TIMED_OUT, QUEUED, EARLY_STOPPED);
            default -> EnumSet.noneOf(JobState.class);
        };
    }

    public static JobState parse(String s) {
        return s == null || s.isEmpty() ? null : valueOf(s);
    }
}
