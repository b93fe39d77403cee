package dev.warmpool.protocol.script;

import java.util.List;

/**
 * retire.lua: an idle processor (or gang) told to retire, if it is still idle and has been since
 * at most the given time; not when it took a job meanwhile.
 */
public record RetireReply(boolean retired) {
    /** ARGV after the prefix: processor or gang id, the latest idle-since (epoch ms) that may be retired. */
    public static List<String> args(String id, long idleSinceAtMost) {
        return List.of(id, Long.toString(idleSinceAtMost));
    }

    public static RetireReply decode(Object raw) {
        return new RetireReply(Replies.flag(raw));
    }
}
