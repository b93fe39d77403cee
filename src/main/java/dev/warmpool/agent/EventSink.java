package dev.warmpool.agent;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.warmpool.agent.io.AgentLog;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Sends {@code dev.warmpool.job.finished} to the sink named by {@code K_SINK} (as a Knative
 * SinkBinding injects it). The agent sends it because it sees the end, and the manager may be at
 * zero. It sends on a thread of its own, retrying with backoff, so the processor never waits for
 * the sink to take its next job. Binary mode is five headers, written here rather than pulling
 * the CloudEvents SDK into every processor.
 */
final class EventSink {
    static final int MAX_ATTEMPTS = 8;
    private final URI sink;
    private final String source;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final BlockingQueue<HttpRequest> pending = new ArrayBlockingQueue<>(1000);

    EventSink(URI sink, String pool, String processorId) {
        this.sink = sink;
        this.source = "/warmpool/pools/" + pool + "/processors/" + processorId;
        Thread t = new Thread(this::deliverAll, "agent-events");
        t.setDaemon(true);
        t.start();
    }

    static EventSink fromEnv(String pool, String processorId) {
        String sink = System.getenv("K_SINK");
        return sink == null || sink.isBlank() ? null : new EventSink(URI.create(sink), pool, processorId);
    }

    /** Queues the event of a job's end; the oldest waiting event is dropped if 1,000 are waiting. */
    void finished(String jobId, String token, String type, String state, int exitCode, String metrics, String error) {
        JsonObject data = new JsonObject();
        data.addProperty("id", jobId);
        data.addProperty("type", type);
        data.addProperty("state", state);
        data.addProperty("exitCode", exitCode);
        data.add("metrics", JsonParser.parseString(metrics == null || metrics.isEmpty() ? "{}" : metrics));
        if (error != null && !error.isEmpty()) {
            data.addProperty("error", error);
        }
        HttpRequest request = HttpRequest.newBuilder(sink)
                .timeout(Duration.ofSeconds(10))
                .header("ce-specversion", "1.0")
                .header("ce-id", jobId + "-" + token) // one id per completion: a receiver can drop repeats
                .header("ce-source", source)
                .header("ce-type", "dev.warmpool.job.finished")
                .header("ce-subject", jobId)
                .header("ce-time", Instant.now().toString())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(data.toString()))
                .build();
        while (!pending.offer(request)) {
            HttpRequest dropped = pending.poll();
            if (dropped != null) {
                AgentLog.log("event queue full: dropped the oldest finished event");
            }
        }
    }

    private void deliverAll() {
        while (true) {
            try {
                deliver(pending.take());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Up to 8 attempts, 0.2 s doubling to 10 s apart (about 30 s in all), on a 5xx, 429 or no answer. */
    private void deliver(HttpRequest request) throws InterruptedException {
        long pause = 200;
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            try {
                int status = http.send(request, HttpResponse.BodyHandlers.discarding())
                        .statusCode();
                if (status < 300) {
                    return;
                }
                if (status < 500 && status != 429) {
                    AgentLog.log(
                            "sink refused event %s: %d",
                            request.headers().firstValue("ce-id").orElse(""), status);
                    return;
                }
            } catch (IOException e) {
                // no answer: try again
            }
            Thread.sleep(pause); // backoff between deliveries, on the event thread only
            pause = Math.min(pause * 2, 10_000);
        }
        AgentLog.log(
                "gave up on event %s after %d attempts",
                request.headers().firstValue("ce-id").orElse(""), MAX_ATTEMPTS);
    }
}
