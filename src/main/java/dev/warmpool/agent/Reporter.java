package dev.warmpool.agent;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.warmpool.agent.io.AgentJson;
import dev.warmpool.agent.io.AgentLog;
import dev.warmpool.agent.io.Tail;
import dev.warmpool.protocol.script.ReportReply;
import dev.warmpool.protocol.script.Script;

/** Passes a running job's reports ({@code WARMPOOL_REPORT} lines, worker reports) to the report script. */
final class Reporter {
    private final RedisLink redis;
    private final AgentConfig config;

    Reporter(RedisLink redis, AgentConfig config) {
        this.redis = redis;
        this.config = config;
    }

    /**
     * Intermediate metrics from the job's thread: {@code {"step": N, "<metric>": value, ...}}. The
     * report script keeps them as the job's progress and, for a sweep's trial, may end it by the
     * median rule; then the process is stopped here at once.
     */
    void report(JobRun run, String json) {
        JsonObject metrics;
        if (json.length() > Tail.MAX_REPORT) {
            AgentLog.log("ignoring report of job %s longer than %d characters", run.jobId, Tail.MAX_REPORT);
            return;
        }
        try {
            JsonElement e = JsonParser.parseString(json);
            if (!e.isJsonObject()
                    || !e.getAsJsonObject().has("step")
                    || !e.getAsJsonObject().get("step").isJsonPrimitive()) {
                AgentLog.log("ignoring report of job %s without a whole-number 'step': %s", run.jobId, shorten(json));
                return;
            }
            metrics = e.getAsJsonObject();
            long step = metrics.get("step").getAsBigDecimal().longValueExact();
            if (step < 0) {
                throw new ArithmeticException("negative step");
            }
            ReportReply reply = ReportReply.decode(redis.runReliably(
                    Script.REPORT,
                    ReportReply.args(
                            config.processorId(),
                            run.jobId,
                            run.token,
                            step,
                            AgentJson.finite(metrics),
                            config.retentionSeconds(),
                            config.logLines())));
            if (reply instanceof ReportReply.Stop stop) {
                AgentLog.log("job %s: %s", run.jobId, stop.reason());
                run.kill(JobRun.Forced.EARLY_STOPPED);
            }
        } catch (RuntimeException e) {
            AgentLog.log("ignoring report of job %s that is not {\"step\": N, ...}: %s", run.jobId, shorten(json));
        }
    }

    static String shorten(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }
}
