package dev.warmpool.protocol.script;

import dev.warmpool.protocol.JobState;
import java.util.List;

/**
 * lost.lua: a processor whose heartbeat is older than the deadline removed, with the job it held
 * ("" for none) and that job's new state (QUEUED again, or FAILED with no attempt left; null when
 * nothing was requeued); alive, when it beat after the deadline; or gone, when Redis has no such
 * processor (it deregistered, or was found lost before): calling it twice changes nothing.
 */
public sealed interface LostReply permits LostReply.Lost, LostReply.Alive, LostReply.Gone {
    record Lost(String jobId, JobState jobState) implements LostReply {}

    record Alive() implements LostReply {}

    record Gone() implements LostReply {}

    /** ARGV after the prefix: processor id, heartbeat deadline (epoch ms), reason, retention seconds. */
    static List<String> args(String processorId, long heartbeatDeadline, String reason, long retentionSeconds) {
        return List.of(processorId, Long.toString(heartbeatDeadline), reason, Long.toString(retentionSeconds));
    }

    static LostReply decode(Object raw) {
        List<Object> r = Replies.listOrStatus(raw);
        return switch (Replies.string(r.get(0))) {
            case "ALIVE" -> new Alive();
            case "GONE" -> new Gone();
            case "LOST" -> new Lost(Replies.string(r.get(1)), Replies.jobState(r.get(2)));
            default -> throw Replies.unexpected(Script.LOST, raw);
        };
    }
}
