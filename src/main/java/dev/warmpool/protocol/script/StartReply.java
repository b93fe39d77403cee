package dev.warmpool.protocol.script;

import java.util.List;

/** start.lua: the agent marks its job running, if the assignment is still its own, and gets what runs it. */
public sealed interface StartReply permits StartReply.Running, StartReply.Stale {
    record Running(Run run) implements StartReply {}

    /** The job is no longer this processor's to run. */
    record Stale(String reason) implements StartReply {}

    /** ARGV after the prefix: processor id, job id, the assignment's token. */
    static List<String> args(String processorId, String jobId, String token) {
        return List.of(processorId, jobId, token);
    }

    static StartReply decode(Object raw) {
        List<Object> r = Replies.listOrStatus(raw);
        return "RUN".equals(Replies.string(r.get(0)))
                ? new Running(Run.decode(r, 0))
                : new Stale(r.size() > 1 ? Replies.string(r.get(1)) : Replies.string(r.get(0)));
    }
}
