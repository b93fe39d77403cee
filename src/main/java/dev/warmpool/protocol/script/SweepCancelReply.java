package dev.warmpool.protocol.script;

import java.util.List;

/** sweep_cancel.lua: the sweep cancelled (its open trials with it), already ended (and how), or unknown. */
public sealed interface SweepCancelReply
        permits SweepCancelReply.Cancelled, SweepCancelReply.Ended, SweepCancelReply.NoSweep {
    record Cancelled() implements SweepCancelReply {}

    record Ended(String state) implements SweepCancelReply {}

    record NoSweep() implements SweepCancelReply {}

    /** ARGV after the prefix: sweep id, reason, retention seconds. */
    static List<String> args(String sweepId, String reason, long retentionSeconds) {
        return List.of(sweepId, reason, Long.toString(retentionSeconds));
    }

    static SweepCancelReply decode(Object raw) {
        List<Object> r = Replies.listOrStatus(raw);
        return switch (Replies.string(r.get(0))) {
            case "NOSWEEP" -> new NoSweep();
            case "ENDED" -> new Ended(Replies.string(r.get(1)));
            case "CANCELLED" -> new Cancelled();
            default -> throw Replies.unexpected(Script.SWEEP_CANCEL, raw);
        };
    }
}
