package dev.warmpool.protocol.script;

import java.util.ArrayList;
import java.util.List;

/**
 * log.lua: a batch of a running job's output lines appended to its event stream
 * ({@link KeySchema#jobEvents}), or refused as stale when the job is no longer the processor's
 * to run (the agent then stops sending that job's lines).
 */
public sealed interface LogReply permits LogReply.Appended, LogReply.Stale {
    record Appended() implements LogReply {}

    record Stale(String reason) implements LogReply {}

    /** ARGV after the prefix: processor id, job id, token, the stream's cap (entries, about), then the lines. */
    static List<String> args(String processorId, String jobId, String token, int cap, List<String> lines) {
        List<String> argv = new ArrayList<>(4 + lines.size());
        argv.add(processorId);
        argv.add(jobId);
        argv.add(token);
        argv.add(Integer.toString(cap));
        argv.addAll(lines);
        return argv;
    }

    static LogReply decode(Object raw) {
        List<Object> r = Replies.listOrStatus(raw);
        return switch (Replies.string(r.get(0))) {
            case "OK" -> new Appended();
            case "STALE" -> new Stale(Replies.string(r.get(1)));
            default -> throw Replies.unexpected(Script.LOG, raw);
        };
    }
}
