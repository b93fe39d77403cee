package dev.warmpool.protocol.script;

import java.util.List;

/**
 * report.lua: a running job's intermediate metrics recorded; for a sweep trial that the median
 * rule stops, the reason it was stopped (the job is EARLY_STOPPED already, the agent kills it);
 * or stale, when the assignment moved on.
 */
public sealed interface ReportReply permits ReportReply.Recorded, ReportReply.Stop, ReportReply.Stale {
    record Recorded() implements ReportReply {}

    record Stop(String reason) implements ReportReply {}

    record Stale(String reason) implements ReportReply {}

    /**
     * ARGV after the prefix: processor id, job id, token, step, metrics JSON, retention seconds,
     * the cap of the job's event stream, which the report joins (entries, about).
     */
    static List<String> args(
            String processorId,
            String jobId,
            String token,
            long step,
            String metricsJson,
            long retentionSeconds,
            int eventsCap) {
        return List.of(
                processorId,
                jobId,
                token,
                Long.toString(step),
                metricsJson,
                Long.toString(retentionSeconds),
                Integer.toString(Math.max(eventsCap, 1)));
    }

    static ReportReply decode(Object raw) {
        List<Object> r = Replies.listOrStatus(raw);
        return switch (Replies.string(r.get(0))) {
            case "OK" -> new Recorded();
            case "STOP" -> new Stop(Replies.string(r.get(1)));
            case "STALE" -> new Stale(Replies.string(r.get(1)));
            default -> throw Replies.unexpected(Script.REPORT, raw);
        };
    }
}
