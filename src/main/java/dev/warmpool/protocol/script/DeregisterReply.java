package dev.warmpool.protocol.script;

import dev.warmpool.protocol.JobState;
import java.util.List;

/**
 * deregister.lua: a stopping agent removed its processor; a job it still held went back to the
 * queue (uncharged) and {@code requeuedAs} is that job's new state, or null when it held none.
 */
public record DeregisterReply(JobState requeuedAs) {
    /** ARGV after the prefix: processor id, reason (the requeued job's error), retention seconds. */
    public static List<String> args(String processorId, String reason, long retentionSeconds) {
        return List.of(processorId, reason, Long.toString(retentionSeconds));
    }

    public static DeregisterReply decode(Object raw) {
        return new DeregisterReply(Replies.jobState(raw));
    }
}
