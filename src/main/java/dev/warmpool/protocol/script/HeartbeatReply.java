package dev.warmpool.protocol.script;

import dev.warmpool.protocol.ProcessorState;
import java.util.List;

/**
 * heartbeat.lua: an agent's processor is alive (and Redis says in which state), or Redis does
 * not know it (declared lost, or Redis lost its data), or the job it beat for is another
 * processor's now (fenced).
 */
public sealed interface HeartbeatReply permits HeartbeatReply.Alive, HeartbeatReply.Unknown, HeartbeatReply.Fenced {
    record Alive(ProcessorState state) implements HeartbeatReply {}

    record Unknown() implements HeartbeatReply {}

    record Fenced() implements HeartbeatReply {}

    /** ARGV after the prefix: processor id, the job it runs and that assignment's token ("" and "" when idle). */
    static List<String> args(String processorId, String jobId, String token) {
        return List.of(processorId, jobId == null ? "" : jobId, token == null ? "" : token);
    }

    static HeartbeatReply decode(Object raw) {
        String s = Replies.string(raw);
        return switch (s) {
            case "UNKNOWN" -> new Unknown();
            case "FENCED" -> new Fenced();
            default -> new Alive(ProcessorState.valueOf(s));
        };
    }
}
