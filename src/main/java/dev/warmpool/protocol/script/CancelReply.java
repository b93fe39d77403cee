package dev.warmpool.protocol.script;

import dev.warmpool.protocol.JobState;
import java.util.List;

/** cancel.lua: the job cancelled (and the state it was in), already ended (and how), or unknown. */
public sealed interface CancelReply permits CancelReply.Cancelled, CancelReply.Ended, CancelReply.NoJob {
    record Cancelled(JobState previous) implements CancelReply {}

    record Ended(JobState state) implements CancelReply {}

    record NoJob() implements CancelReply {}

    /** ARGV after the prefix: job id, reason (the job's error), retention seconds; the job ends CANCELLED. */
    static List<String> args(String jobId, String reason, long retentionSeconds) {
        return args(jobId, reason, retentionSeconds, JobState.CANCELLED);
    }

    /** As above, the job ending in {@code end}: CANCELLED, or EARLY_STOPPED (a tuner pruned it). */
    static List<String> args(String jobId, String reason, long retentionSeconds, JobState end) {
        if (end != JobState.CANCELLED && end != JobState.EARLY_STOPPED) {
            throw new IllegalArgumentException("a cancel ends a job CANCELLED or EARLY_STOPPED, not " + end);
        }
        return List.of(jobId, reason, Long.toString(retentionSeconds), end.name());
    }

    static CancelReply decode(Object raw) {
        List<Object> r = Replies.listOrStatus(raw);
        return switch (Replies.string(r.get(0))) {
            case "NOJOB" -> new NoJob();
            case "ENDED" -> new Ended(Replies.jobState(r.get(1)));
            case "CANCELLED" -> new Cancelled(Replies.jobState(r.get(1)));
            default -> throw Replies.unexpected(Script.CANCEL, raw);
        };
    }
}
