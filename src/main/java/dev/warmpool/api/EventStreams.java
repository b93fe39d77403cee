package dev.warmpool.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.pool.Job;
import dev.warmpool.pool.JobEvent;
import dev.warmpool.pool.StoredJson;
import dev.warmpool.service.Follower;
import io.smallrye.mutiny.Multi;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import java.util.function.UnaryOperator;

/**
 * A followed job or sweep as Server-Sent Events: the event's name is what happened
 * ({@code state}, {@code log}, {@code report}, {@code end}; {@code sweep}, {@code trial}), its
 * data a log line as text or the rest as JSON, and a log line or report carries its stream id as
 * the event's id, which a reconnecting client sends back as {@code Last-Event-ID}.
 */
final class EventStreams {
    private EventStreams() {}

    /** {@code shown} is a job in the stream as its reader may see it (JobReaders: env values, config, log tail). */
    static Multi<OutboundSseEvent> sse(
            Multi<Follower.Item> items, Sse sse, ObjectMapper json, UnaryOperator<Job> shown) {
        return items.map(item -> item.data() instanceof Job job
                        ? new Follower.Item(item.kind(), item.id(), shown.apply(job))
                        : item)
                .map(item -> {
                    OutboundSseEvent.Builder b = sse.newEventBuilder().name(item.kind());
                    if (item.id() != null) {
                        b.id(item.id());
                    }
                    return b.data(String.class, text(item, json)).build();
                });
    }

    private static String text(Follower.Item item, ObjectMapper json) {
        if (item.data() instanceof String s) {
            // a log line is text; a report is JSON already (strict JSON: an older build's bare NaN becomes "NaN")
            return JobEvent.LOG.equals(item.kind())
                    ? s
                    : JobEvent.REPORT.equals(item.kind()) ? StoredJson.text(json, s) : quote(s, json);
        }
        try {
            return json.writeValueAsString(item.data());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String quote(String s, ObjectMapper json) {
        try {
            return json.writeValueAsString(s);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
