package dev.warmpool.service;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.pool.Ids;
import dev.warmpool.pool.Job;
import dev.warmpool.protocol.Fields.JobHash;
import dev.warmpool.protocol.script.NewJob;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** A valid job request with its defaults filled in and a new id, ready to store and to show. */
record Accepted(
        NewJob stored,
        JobRequest request,
        int timeout,
        int maxAttempts,
        List<String> args,
        JsonNode config,
        Map<String, String> env) {
    String id() {
        return stored.id();
    }

    /** The job as accepted: assigned to {@code processor}, or queued when that is null; {@code tenant} as stored. */
    Job view(String processor, String now, String tenant) {
        return Job.accepted(
                id(),
                request.type(),
                stored.priority(),
                maxAttempts,
                timeout,
                processor,
                now,
                args,
                config,
                env,
                stored.fields().get("submittedBy"),
                tenant);
    }

    /** This job as {@code id}, with {@code more} fields stored beside the request's (those only the manager writes). */
    Accepted as(String id, Map<String, String> more) {
        Map<String, String> fields = new LinkedHashMap<>(stored.fields());
        fields.putAll(more);
        fields.put(JobHash.ID, id);
        return new Accepted(
                new NewJob(id, stored.priority(), fields), request, timeout, maxAttempts, args, config, env);
    }

    /** {@code field} prefixes the names in errors, e.g. "jobs[3]." in a batch. */
    static Accepted of(
            JobRequest r, String field, Caller caller, WarmpoolConfig config, Function<Object, String> json) {
        if (r.config() != null && !r.config().isObject() && !r.config().isNull()) {
            throw Refusal.invalid(
                    field + "config", "'" + field + "config' must be a JSON object, e.g. {\"lr\": 0.01}.");
        }
        String id = Ids.newJobId(r.type(), System.currentTimeMillis());
        int priority = r.priority() == null ? 0 : r.priority();
        int timeout = r.timeoutSeconds() == null ? config.jobs().defaultTimeoutSeconds() : r.timeoutSeconds();
        int maxAttempts = r.maxAttempts() == null ? config.jobs().defaultMaxAttempts() : r.maxAttempts();
        List<String> args = r.args() == null ? List.of() : r.args();
        JsonNode cfg = r.config() == null || r.config().isNull() ? null : r.config();
        Map<String, String> env = r.env() == null ? Map.of() : r.env();
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put(JobHash.ID, id);
        fields.put(JobHash.TYPE, r.type());
        fields.put(JobHash.PRIORITY, Integer.toString(priority));
        fields.put(JobHash.TIMEOUT_SECONDS, Integer.toString(timeout));
        fields.put(JobHash.MAX_ATTEMPTS, Integer.toString(maxAttempts));
        fields.put(JobHash.ARGS, json.apply(args));
        fields.put(JobHash.CONFIG, cfg == null ? "{}" : json.apply(cfg));
        fields.put(JobHash.ENV, json.apply(env));
        fields.put(JobHash.SUBMITTED_BY, caller.name());
        return new Accepted(new NewJob(id, priority, fields), r, timeout, maxAttempts, args, cfg, env);
    }
}
