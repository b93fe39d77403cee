package dev.warmpool.pool;

/**
 * One entry of a job's event stream: {@code log} (a line it printed) or {@code report} (metrics it
 * reported, JSON), under the stream's id, which {@code Last-Event-ID} resumes after.
 */
public record JobEvent(String id, String kind, String data) {
    public static final String LOG = "log";
    public static final String REPORT = "report";
}
