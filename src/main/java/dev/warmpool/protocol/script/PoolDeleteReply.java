package dev.warmpool.protocol.script;

import java.util.List;

/** pool_delete.lua: the pool draining, with how many queued jobs it cancelled and idle processors it retired; or no such pool. */
public sealed interface PoolDeleteReply permits PoolDeleteReply.Drained, Refused.NoPool {
    record Drained(long cancelled, long retired) implements PoolDeleteReply {}

    /** ARGV after the prefix: reason (the cancelled jobs' error), retention seconds. */
    static List<String> args(String reason, long retentionSeconds) {
        return List.of(reason, Long.toString(retentionSeconds));
    }

    static PoolDeleteReply decode(Object raw) {
        if ("NOPOOL".equals(Replies.status(raw))) {
            return new Refused.NoPool();
        }
        List<Object> r = Replies.list(raw);
        return new Drained(Long.parseLong(Replies.string(r.get(0))), Long.parseLong(Replies.string(r.get(1))));
    }
}
