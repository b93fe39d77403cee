package dev.warmpool.protocol.script;

import java.util.List;

/**
 * Why a submit script stored nothing: no such pool, the pool is draining, the Idempotency-Key
 * created something before (with that request's fingerprint), or the queue is full.
 */
public sealed interface Refused permits Refused.NoPool, Refused.Draining, Refused.Duplicate, Refused.Full {
    record NoPool() implements Refused, SubmitReply, BatchReply, SweepPutReply, PoolDeleteReply {}

    record Draining() implements Refused, SubmitReply, BatchReply, SweepPutReply {}

    /** {@code first}: what the key created (a job id, a batch's ids joined by commas, a sweep id). */
    record Duplicate(String first, String fingerprint) implements Refused, SubmitReply, BatchReply, SweepPutReply {}

    record Full(long queued) implements Refused, SubmitReply, BatchReply {}

    /** The refusal in a script's reply ({@code 'NOPOOL'}, {@code {'DUPLICATE', id, fp}}, ...), or null when it took the work. */
    static Refused decode(Object raw) {
        List<Object> r = Replies.listOrStatus(raw);
        return switch (Replies.string(r.get(0))) {
            case "NOPOOL" -> new NoPool();
            case "DRAINING" -> new Draining();
            case "DUPLICATE" -> new Duplicate(Replies.string(r.get(1)), Replies.string(r.get(2)));
            case "FULL" -> new Full(Long.parseLong(Replies.string(r.get(1))));
            default -> null;
        };
    }
}
