package dev.warmpool.protocol.script;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** sweep_put.lua: its arguments, and its reply: the sweep and its trials stored, or refused. */
public sealed interface SweepPutReply
        permits SweepPutReply.Created, Refused.NoPool, Refused.Draining, Refused.Duplicate {
    record Created(long total, long now) implements SweepPutReply {}

    /**
     * ARGV after the prefix: sweep id, key hash, fingerprint, ttl, the trials' priority, n and the
     * sweep's n field/value pairs, m and the m pairs every trial shares, then per trial: id, config JSON.
     */
    static List<String> args(
            String sweepId,
            Idempotency idem,
            int priority,
            Map<String, String> sweep,
            Map<String, String> shared,
            Map<String, String> trials) {
        List<String> args = new ArrayList<>(8 + 2 * (sweep.size() + shared.size() + trials.size()));
        args.add(sweepId);
        args.add(idem.keyHash());
        args.add(idem.fingerprint());
        args.add(Long.toString(idem.ttlSeconds()));
        args.add(Integer.toString(priority));
        for (Map<String, String> fields : List.of(sweep, shared)) {
            args.add(Integer.toString(fields.size()));
            fields.forEach((k, v) -> {
                args.add(k);
                args.add(v);
            });
        }
        trials.forEach((id, config) -> {
            args.add(id);
            args.add(config);
        });
        return args;
    }

    static SweepPutReply decode(Object raw) {
        Refused refused = Refused.decode(raw);
        if (refused instanceof Refused.Full) {
            throw new IllegalStateException("sweep_put answered FULL, which it never does");
        }
        if (refused != null) {
            return (SweepPutReply) refused;
        }
        List<Object> r = Replies.list(raw);
        return new Created(Long.parseLong(Replies.string(r.get(1))), Long.parseLong(Replies.string(r.get(2))));
    }
}
