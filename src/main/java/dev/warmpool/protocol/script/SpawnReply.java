package dev.warmpool.protocol.script;

import java.util.List;

/** spawn.lua: a processor recorded as STARTING before the runtime starts it; not when the pool is full or draining. */
public record SpawnReply(boolean recorded) {
    /** ARGV after the prefix: the new processor's id. */
    public static List<String> args(String processorId) {
        return List.of(processorId);
    }

    public static SpawnReply decode(Object raw) {
        return new SpawnReply(Replies.flag(raw));
    }
}
