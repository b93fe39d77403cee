package dev.warmpool.protocol.script;

import java.util.List;

/**
 * sweep_add.lua: a trial added to an external sweep (its job id, index and state: PENDING, or
 * QUEUED/ASSIGNED when released at once), or why not: no such sweep, one that draws its own
 * configurations, one that has ended, or one that has all its trials.
 */
public sealed interface SweepAddReply
        permits SweepAddReply.Added,
                SweepAddReply.NoSweep,
                SweepAddReply.Forbidden,
                SweepAddReply.KeyConflict,
                SweepAddReply.NotExternal,
                SweepAddReply.Ended,
                SweepAddReply.Full {
    /** {@code existing}: the driver's key named a trial it added before, which this is. */
    record Added(String jobId, int index, String state, boolean existing) implements SweepAddReply {}

    record NoSweep() implements SweepAddReply {}

    /** The caller is neither the sweep's submitter nor an admin. */
    record Forbidden(String submittedBy) implements SweepAddReply {}

    /** The key names a trial added before with another configuration. */
    record KeyConflict(String jobId) implements SweepAddReply {}

    record NotExternal() implements SweepAddReply {}

    record Ended(String state) implements SweepAddReply {}

    record Full(int total) implements SweepAddReply {}

    /**
     * ARGV after the prefix: sweep id, the trial's config JSON, retention seconds, the driver's key or "", the
     * caller's name, and whether the caller is an admin.
     */
    static List<String> args(
            String sweepId, String configJson, long retentionSeconds, String key, String caller, boolean admin) {
        return List.of(
                sweepId,
                configJson,
                Long.toString(retentionSeconds),
                key == null ? "" : key,
                caller,
                admin ? "1" : "0");
    }

    static SweepAddReply decode(Object raw) {
        List<Object> r = Replies.listOrStatus(raw);
        return switch (Replies.string(r.get(0))) {
            case "ADDED" ->
                new Added(
                        Replies.string(r.get(1)),
                        Integer.parseInt(Replies.string(r.get(2))),
                        Replies.string(r.get(3)),
                        "1".equals(Replies.string(r.get(4))));
            case "NOSWEEP" -> new NoSweep();
            case "FORBIDDEN" -> new Forbidden(Replies.string(r.get(1)));
            case "KEYCONFLICT" -> new KeyConflict(Replies.string(r.get(1)));
            case "NOTEXTERNAL" -> new NotExternal();
            case "ENDED" -> new Ended(Replies.string(r.get(1)));
            case "FULL" -> new Full(Integer.parseInt(Replies.string(r.get(1))));
            default -> throw Replies.unexpected(Script.SWEEP_ADD, raw);
        };
    }
}
