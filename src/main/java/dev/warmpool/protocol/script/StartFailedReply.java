package dev.warmpool.protocol.script;

import java.util.List;

/**
 * start_failed.lua: an agent that cannot serve left why on its processor, still STARTING, before
 * it exits; not when the processor was no longer STARTING (registered, or gone from Redis).
 */
public record StartFailedReply(boolean recorded) {
    /** ARGV after the prefix: the processor id, why it cannot serve. */
    public static List<String> args(String processorId, String reason) {
        return List.of(processorId, reason);
    }

    public static StartFailedReply decode(Object raw) {
        return new StartFailedReply(Replies.flag(raw));
    }
}
