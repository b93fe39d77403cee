package dev.warmpool.api;

import dev.warmpool.service.Refusal;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An error a client can act on, answered as {@code application/problem+json} (RFC 9457): a
 * stable {@code type}, the status, and a sentence that says what to change.
 */
public class Problem extends RuntimeException {
    public static final String TYPE_BASE = "https://warmpool.dev/problems/";

    private final int status;
    private final String slug;
    private final String title;
    private final Map<String, Object> extensions = new LinkedHashMap<>();
    private Integer retryAfterSeconds;

    public Problem(int status, String slug, String title, String detail) {
        super(detail, null, false, false);
        this.status = status;
        this.slug = slug;
        this.title = title;
    }

    public static Problem invalid(String field, String detail) {
        return new Problem(400, "invalid-request", "Invalid request", detail).with("field", field);
    }

    public static Problem notFound(String slug, String detail) {
        return new Problem(404, slug, "Not found", detail);
    }

    public static Problem conflict(String slug, String detail) {
        return new Problem(409, slug, "Conflict", detail);
    }

    /** The problem a domain refusal is, over HTTP. */
    public static Problem of(Refusal r) {
        int status = switch (r.kind()) {
            case INVALID -> 400;
            case FORBIDDEN -> 403;
            case NOT_FOUND -> 404;
            case CONFLICT -> 409;
            case UNPROCESSABLE -> 422;
            case TOO_MANY -> 429;
            case UNAVAILABLE -> 503;
        };
        Problem p = new Problem(status, r.slug(), r.title(), r.getMessage());
        r.extensions().forEach(p::with);
        if (r.retryAfterSeconds() != null) {
            p.retryAfter(r.retryAfterSeconds());
        }
        return p;
    }

    public Problem with(String name, Object value) {
        extensions.put(name, value);
        return this;
    }

    /** Adds a Retry-After header: when the client should try again. */
    public Problem retryAfter(int seconds) {
        this.retryAfterSeconds = seconds;
        return this;
    }

    public Integer retryAfterSeconds() {
        return retryAfterSeconds;
    }

    public int status() {
        return status;
    }

    /** The problem+json body. */
    public Map<String, Object> body(String instance) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", TYPE_BASE + slug);
        body.put("title", title);
        body.put("status", status);
        body.put("detail", getMessage());
        if (instance != null) {
            body.put("instance", instance);
        }
        body.putAll(extensions);
        return body;
    }
}
