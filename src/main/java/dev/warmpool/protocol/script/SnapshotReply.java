package dev.warmpool.protocol.script;

import dev.warmpool.protocol.Fields;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * snapshot.lua: one read of a pool. The fields it reads of each processor and gang hash are
 * named here alone and handed to the script as its arguments, so the two cannot drift apart.
 */
public sealed interface SnapshotReply permits SnapshotReply.Pool, SnapshotReply.NoPool {
    /** What snapshot.lua reads of each processor and gang, in this order; only a gang has {@code members}. */
    List<String> FIELDS = List.of(
            Fields.ProcessorHash.ID,
            Fields.ProcessorHash.STATE,
            Fields.ProcessorHash.JOB,
            Fields.ProcessorHash.SINCE,
            Fields.ProcessorHash.HEARTBEAT,
            Fields.ProcessorHash.STARTED_AT,
            Fields.GangHash.MEMBERS,
            Fields.ProcessorHash.DEADLINE);

    /** One processor or gang: times are epoch milliseconds (0 when unset; a gang has no deadline). */
    record Row(String id, String state, String job, long since, long heartbeat, long startedAt, long deadline) {}

    /**
     * The pool's hash, its queue length, the Redis clock, its warmth hash (KeySchema.warmth), the
     * idle time so far of the processors idle now, its processors and (in a gang pool) gangs.
     */
    record Pool(
            Map<String, String> pool,
            int queued,
            long now,
            Map<String, String> warmth,
            long idleNowMs,
            List<Row> processors,
            List<Row> gangs)
            implements SnapshotReply {}

    record NoPool() implements SnapshotReply {}

    static List<String> args() {
        return FIELDS;
    }

    static SnapshotReply decode(Object raw) {
        if ("NOPOOL".equals(Replies.status(raw))) {
            return new NoPool();
        }
        List<Object> parts = Replies.list(raw);
        List<Row> processors = new ArrayList<>();
        List<Row> gangs = new ArrayList<>();
        for (Object p : parts.subList(5, parts.size())) {
            List<Object> v = Replies.list(p);
            Row row = new Row(
                    Replies.string(v.get(0)),
                    Replies.string(v.get(1)),
                    Replies.string(v.get(2)),
                    millis(v.get(3)),
                    millis(v.get(4)),
                    millis(v.get(5)),
                    millis(v.get(7)));
            (v.get(6) != null ? gangs : processors).add(row);
        }
        return new Pool(
                Replies.hash(parts.get(0)),
                Integer.parseInt(Replies.string(parts.get(1))),
                Long.parseLong(Replies.string(parts.get(2))),
                Replies.hash(parts.get(3)),
                millis(parts.get(4)),
                processors,
                gangs);
    }

    private static long millis(Object v) {
        String s = Replies.string(v);
        return s == null || s.isEmpty() ? 0L : Long.parseLong(s);
    }
}
