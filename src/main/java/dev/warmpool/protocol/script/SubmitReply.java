package dev.warmpool.protocol.script;

import java.util.ArrayList;
import java.util.List;

/**
 * submit.lua: its arguments, and its reply: the job went to an idle processor (or gang), it
 * waits in the queue, or it was refused and nothing is stored.
 */
public sealed interface SubmitReply
        permits SubmitReply.Assigned,
                SubmitReply.Queued,
                Refused.NoPool,
                Refused.Draining,
                Refused.Duplicate,
                Refused.Full {
    /** {@code now}: the Redis clock (ms) at the submit; {@code tenant}: who the job counts for (fair share). */
    record Assigned(String processor, long now, String tenant) implements SubmitReply {}

    record Queued(long queueLength, long now, String tenant) implements SubmitReply {}

    /** ARGV after the prefix: job id, priority, key hash, fingerprint, ttl, then the job's field/value pairs. */
    static List<String> args(NewJob job, Idempotency idem) {
        List<String> args = new ArrayList<>(5 + 2 * job.fields().size());
        args.add(job.id());
        args.add(Integer.toString(job.priority()));
        args.add(idem.keyHash());
        args.add(idem.fingerprint());
        args.add(Long.toString(idem.ttlSeconds()));
        job.addFieldsTo(args);
        return args;
    }

    static SubmitReply decode(Object raw) {
        Refused refused = Refused.decode(raw);
        if (refused != null) {
            return (SubmitReply) refused;
        }
        List<Object> r = Replies.list(raw);
        long now = Long.parseLong(Replies.string(r.get(2)));
        String tenant = r.size() > 3 ? Replies.string(r.get(3)) : null;
        return "ASSIGNED".equals(Replies.string(r.get(0)))
                ? new Assigned(Replies.string(r.get(1)), now, tenant)
                : new Queued(Long.parseLong(Replies.string(r.get(1))), now, tenant);
    }
}
