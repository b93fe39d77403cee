package dev.warmpool.protocol;

import java.util.List;

/** cancel.lua: the job cancelled (and the state it was in), already ended (and how), or unknown. */
public sealed interface CancelReply permits CancelReply.Cancelled, CancelReply.Ended, CancelReply.NoJob {
    record Cancelled(JobState previous) implements CancelReply {
    }

    record Ended(JobState state) implements CancelReply {
    }

    record NoJob() implements CancelReply {
    }

    /** ARGV after the prefix: job id, reason (the job's error), retention seconds. */
    static List<String> args(String jobId, String reason, long retentionSeconds) {
        return List.of(jobId, reason, Long.toString(retentionSeconds));
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
