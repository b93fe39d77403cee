package dev.warmpool.protocol.script;

import java.util.ArrayList;
import java.util.List;

/** submit_batch.lua: its arguments, and its reply: the whole batch taken, or refused whole. */
public sealed interface BatchReply
        permits BatchReply.Taken, Refused.NoPool, Refused.Draining, Refused.Duplicate, Refused.Full {
    /** {@code processors}: per job, in the request's order, the processor it went to, or "" when it was queued. */
    record Taken(long now, List<String> processors) implements BatchReply {}

    /** ARGV after the prefix: key hash, fingerprint, ttl, n, then per job: id, priority, m, m field/value pairs. */
    static List<String> args(List<NewJob> jobs, Idempotency idem) {
        List<String> args = new ArrayList<>(jobs.size() * 20 + 4);
        args.add(idem.keyHash());
        args.add(idem.fingerprint());
        args.add(Long.toString(idem.ttlSeconds()));
        args.add(Integer.toString(jobs.size()));
        for (NewJob job : jobs) {
            args.add(job.id());
            args.add(Integer.toString(job.priority()));
            args.add(Integer.toString(job.fields().size()));
            job.addFieldsTo(args);
        }
        return args;
    }

    static BatchReply decode(Object raw) {
        Refused refused = Refused.decode(raw);
        if (refused != null) {
            return (BatchReply) refused;
        }
        List<Object> r = Replies.list(raw);
        List<String> processors = new ArrayList<>(r.size() - 2);
        for (Object p : r.subList(2, r.size())) {
            processors.add(Replies.string(p));
        }
        return new Taken(Long.parseLong(Replies.string(r.get(1))), processors);
    }
}
