package dev.warmpool.pool;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/** One warm processor as Redis knows it; times are epoch milliseconds (Redis server time). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Processor(String id, ProcessorState state, String job,
        @JsonIgnore long sinceMillis, @JsonIgnore long heartbeatMillis, @JsonIgnore long startedMillis) {

    public static Processor from(Map<String, String> h) {
        String job = h.get("job");
        return new Processor(h.get("id"), ProcessorState.parse(h.get("state")),
                job == null || job.isEmpty() ? null : job,
                millis(h.get("since")), millis(h.get("hb")), millis(h.get("startedAt")));
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
