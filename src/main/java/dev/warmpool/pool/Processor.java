package dev.warmpool.pool;

import dev.warmpool.protocol.ProcessorState;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/** One warm processor as Redis knows it; times are epoch milliseconds (Redis server time). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Processor(String id, ProcessorState state, String job,
        @JsonIgnore long sinceMillis, @JsonIgnore long heartbeatMillis, @JsonIgnore long startedMillis) {

    /** From the values snapshot.lua reads of a processor or gang hash: id, state, job, since, hb, startedAt. */
    public static Processor from(List<String> v) {
        String job = v.get(2);
        return new Processor(v.get(0), ProcessorState.parse(v.get(1)), job == null || job.isEmpty() ? null : job,
                millis(v.get(3)), millis(v.get(4)), millis(v.get(5)));
    }

    /** When it entered its current state, ISO-8601 UTC. */
    @JsonProperty("since")
    public String since() {
        return Times.iso(sinceMillis);
    }

    static long millis(String s) {
        return s == null || s.isEmpty() ? 0L : Long.parseLong(s);
    }
}
