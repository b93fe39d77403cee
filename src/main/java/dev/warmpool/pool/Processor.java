package dev.warmpool.pool;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.warmpool.protocol.ProcessorState;
import dev.warmpool.protocol.script.SnapshotReply;

/**
 * One warm processor as Redis knows it; times are epoch milliseconds (Redis server time);
 * {@code deadlineMillis}: while busy, when its job must have ended (0: not started there, or no timeout).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Processor(
        String id,
        ProcessorState state,
        String job,
        @JsonIgnore long sinceMillis,
        @JsonIgnore long heartbeatMillis,
        @JsonIgnore long startedMillis,
        @JsonIgnore long deadlineMillis) {

    /** A processor whose job has no deadline (idle, or not started). */
    public Processor(
            String id, ProcessorState state, String job, long sinceMillis, long heartbeatMillis, long startedMillis) {
        this(id, state, job, sinceMillis, heartbeatMillis, startedMillis, 0);
    }

    /** A processor (or gang) as snapshot.lua reads it. */
    public static Processor of(SnapshotReply.Row r) {
        String job = r.job();
        return new Processor(
                r.id(),
                ProcessorState.parse(r.state()),
                job == null || job.isEmpty() ? null : job,
                r.since(),
                r.heartbeat(),
                r.startedAt(),
                r.deadline());
    }

    /** When it entered its current state, ISO-8601 UTC. */
    @JsonProperty("since")
    public String since() {
        return Timestamps.iso(sinceMillis);
    }
}
