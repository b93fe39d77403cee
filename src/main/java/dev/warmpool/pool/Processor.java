package dev.warmpool.pool;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.warmpool.protocol.ProcessorState;

/** One warm processor as Redis knows it; times are epoch milliseconds (Redis server time). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Processor(
        String id,
        ProcessorState state,
        String job,
        @JsonIgnore long sinceMillis,
        @JsonIgnore long heartbeatMillis,
        @JsonIgnore long startedMillis) {

    /** A processor (or gang) as snapshot.lua reads it. */
    public static Processor of(dev.warmpool.protocol.SnapshotReply.Row r) {
        String job = r.job();
        return new Processor(
                r.id(),
                ProcessorState.parse(r.state()),
                job == null || job.isEmpty() ? null : job,
                r.since(),
                r.heartbeat(),
                r.startedAt());
    }

    /** When it entered its current state, ISO-8601 UTC. */
    @JsonProperty("since")
    public String since() {
        return Timestamps.iso(sinceMillis);
    }
}
