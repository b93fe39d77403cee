package dev.warmpool.protocol.script;

import java.util.List;

/** pool_gc.lua: a drained pool whose processors are all gone removed (its jobs expire later); not otherwise. */
public record PoolGcReply(boolean collected) {
    /** ARGV after the prefix: retention seconds (how long the pool's job index outlives it). */
    public static List<String> args(long retentionSeconds) {
        return List.of(Long.toString(retentionSeconds));
    }

    public static PoolGcReply decode(Object raw) {
        return new PoolGcReply(Replies.flag(raw));
    }
}
