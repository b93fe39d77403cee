package dev.warmpool.service;

import dev.warmpool.pool.Timestamps;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Why warmpool will not do what it was asked, as a sentence the caller can act on: the domain's
 * one exception. Its {@link Kind} says what sort of no it is; the API turns that into an HTTP
 * status and problem+json (ProblemMapper), events into their own answer, and nothing here knows HTTP.
 */
public class Refusal extends RuntimeException {
    /** What sort of no: bad input, not allowed, missing, in the way, not now. */
    public enum Kind {
        INVALID,
        FORBIDDEN,
        NOT_FOUND,
        CONFLICT,
        UNPROCESSABLE,
        TOO_MANY,
        UNAVAILABLE
    }

    private final Kind kind;
    private final String slug;
    private final String title;
    private final Map<String, Object> extensions = new LinkedHashMap<>();
    private Integer retryAfterSeconds;

    /** {@code slug} names the problem stably ({@code queue-full}), {@code title} in a few words. */
    public Refusal(Kind kind, String slug, String title, String detail) {
        super(detail, null, false, false);
        this.kind = kind;
        this.slug = slug;
        this.title = title;
    }

    /** The 409 for a submit to a pool that is being deleted; {@code what}: "jobs" or "sweeps". */
    public static Refusal draining(String type, String what) {
        return Refusal.conflict(
                "pool-draining",
                "The pool for job type '" + type + "' is being deleted and takes no new " + what
                        + "; create it again with PUT /pools/" + type + ".");
    }

    /**
     * The 503 for a wait on a queued job whose pool cannot start processors: why (the pool's
     * {@code startError}), and that the job stays queued. Extensions: {@code job}, {@code pool},
     * {@code startError} ({@code reason}, {@code at}), as {@code GET /pools/{type}} shows it.
     */
    public static Refusal cannotStart(String type, String jobId, String reason, Instant at) {
        return new Refusal(
                        Kind.UNAVAILABLE,
                        "pool-cannot-start",
                        "Pool cannot start processors",
                        "Pool '" + type + "' cannot start processors: " + reason + ". Job " + jobId
                                + " stays queued and runs once a processor starts: fix the pool (PUT /pools/"
                                + type + "; GET /pools/" + type + " shows its startError), or cancel the job"
                                + " (DELETE /jobs/" + jobId + ").")
                .with("job", jobId)
                .with("pool", type)
                .with("startError", Map.of("reason", reason, "at", Timestamps.iso(at.toEpochMilli())));
    }

    /** The 404 for a job id that names no job (now). */
    public static Refusal noJob(String id) {
        return notFound(
                "job-not-found",
                "There is no job '" + UserInput.shown(id)
                        + "'; it may never have existed, or it ended longer ago than the retention period.");
    }

    /** The 404 for a sweep id that names no sweep (now). */
    public static Refusal noSweep(String id) {
        return notFound(
                "sweep-not-found",
                "There is no sweep '" + UserInput.shown(id)
                        + "'; it may never have existed, or it ended longer ago than the retention period.");
    }

    /** A bad field: {@code field} says where, e.g. {@code jobs[3].env.LD_PRELOAD}. */
    public static Refusal invalid(String field, String detail) {
        return new Refusal(Kind.INVALID, "invalid-request", "Invalid request", detail).with("field", field);
    }

    public static Refusal notFound(String slug, String detail) {
        return new Refusal(Kind.NOT_FOUND, slug, "Not found", detail);
    }

    public static Refusal conflict(String slug, String detail) {
        return new Refusal(Kind.CONFLICT, slug, "Conflict", detail);
    }

    public static Refusal forbidden(String detail) {
        return new Refusal(Kind.FORBIDDEN, "forbidden", "Forbidden", detail);
    }

    /** Adds a member to the answer, e.g. {@code knownTypes}. */
    public Refusal with(String name, Object value) {
        extensions.put(name, value);
        return this;
    }

    /** When to try again, for refusals that pass. */
    public Refusal retryAfter(int seconds) {
        this.retryAfterSeconds = seconds;
        return this;
    }

    public Kind kind() {
        return kind;
    }

    public String slug() {
        return slug;
    }

    public String title() {
        return title;
    }

    public Integer retryAfterSeconds() {
        return retryAfterSeconds;
    }

    public Map<String, Object> extensions() {
        return Collections.unmodifiableMap(extensions);
    }
}
