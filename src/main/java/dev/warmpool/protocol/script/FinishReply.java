package dev.warmpool.protocol.script;

import java.util.List;

/**
 * finish.lua: a job's result recorded and the job ended, then the processor's next job (already
 * running, when the agent takes it from the reply) or idle; or refused, when the token is stale.
 */
public sealed interface FinishReply permits FinishReply.Done, FinishReply.Stale {
    /** {@code nextJob} "" when the processor went idle (or the next job went through the inbox); {@code next} null then. */
    record Done(String nextJob, String nextToken, Run next) implements FinishReply {}

    record Stale(String reason) implements FinishReply {}

    /** What an agent reports of a job's end; {@code stopping}: it takes no next job; {@code take}: the next comes in the reply. */
    record Args(
            String processorId,
            String jobId,
            String token,
            String state,
            int exitCode,
            String metricsJson,
            String logTail,
            String error,
            long retentionSeconds,
            boolean stopping,
            boolean take) {
        public List<String> argv() {
            return List.of(
                    processorId,
                    jobId,
                    token,
                    state,
                    Integer.toString(exitCode),
                    metricsJson,
                    logTail,
                    error == null ? "" : error,
                    Long.toString(retentionSeconds),
                    stopping ? "1" : "0",
                    take ? "1" : "0");
        }
    }

    static FinishReply decode(Object raw) {
        List<Object> r = Replies.listOrStatus(raw);
        if ("STALE".equals(Replies.string(r.get(0)))) {
            return new Stale(r.size() > 1 ? Replies.string(r.get(1)) : "");
        }
        String next = r.size() > 1 ? Replies.string(r.get(1)) : "";
        return r.size() > 3
                ? new Done(next, Replies.string(r.get(2)), Run.decode(r, 3))
                : new Done(next == null ? "" : next, "", null);
    }
}
