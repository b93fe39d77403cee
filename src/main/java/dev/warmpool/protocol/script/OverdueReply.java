package dev.warmpool.protocol.script;

import dev.warmpool.protocol.JobState;
import java.util.List;

/**
 * overdue.lua: a processor still on its job past the job's deadline (or not started within the
 * bound) removed, with that job's state now (TIMED_OUT; QUEUED or FAILED for a job that never
 * started; its end state when it had ended already; null when the job has expired); moved, when
 * the processor no longer holds the assignment the caller saw; or gone, when Redis has no such
 * processor: calling it twice changes nothing.
 */
public sealed interface OverdueReply permits OverdueReply.Replaced, OverdueReply.Moved, OverdueReply.Gone {
    record Replaced(JobState jobState) implements OverdueReply {}

    record Moved() implements OverdueReply {}

    record Gone() implements OverdueReply {}

    /**
     * ARGV after the prefix: processor id, job id, the processor's since and deadline as the
     * caller's snapshot read them (epoch ms; deadline 0: not started), reason, retention seconds.
     */
    static List<String> args(
            String processorId, String jobId, long since, long deadline, String reason, long retentionSeconds) {
        return List.of(
                processorId,
                jobId,
                Long.toString(since),
                Long.toString(deadline),
                reason,
                Long.toString(retentionSeconds));
    }

    static OverdueReply decode(Object raw) {
        List<Object> r = Replies.listOrStatus(raw);
        return switch (Replies.string(r.get(0))) {
            case "MOVED" -> new Moved();
            case "GONE" -> new Gone();
            case "REPLACED" -> new Replaced(Replies.jobState(r.get(1)));
            default -> throw Replies.unexpected(Script.OVERDUE, raw);
        };
    }
}
