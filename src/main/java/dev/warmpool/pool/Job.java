package dev.warmpool.pool;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.protocol.Fields.JobHash;
import dev.warmpool.protocol.JobState;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A job as the API shows it, read from its Redis hash. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Job(
        String id,
        String type,
        JobState state,
        Integer priority,
        Integer attempts,
        Integer maxAttempts,
        Integer timeoutSeconds,
        String processor,
        String submittedAt,
        String assignedAt,
        String startedAt,
        String finishedAt,
        List<String> args,
        JsonNode config,
        Map<String, String> env,
        Result result,
        String error,
        String sweep,
        Integer trial,
        JsonNode progress,
        Map<String, String> members,
        String submittedBy,
        String tenant) {

    /** What the job's process left: exit code, the metrics from its result file, the end of its output. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Result(Integer exitCode, JsonNode metrics, String logTail) {}

    /**
     * A job as its submit accepted it, before anything ran: assigned to {@code processor} (its first
     * attempt) or queued when that is null; no result, error, sweep or progress yet.
     */
    public static Job accepted(
            String id,
            String type,
            int priority,
            int maxAttempts,
            int timeoutSeconds,
            String processor,
            String submittedAt,
            List<String> args,
            JsonNode config,
            Map<String, String> env,
            String submittedBy,
            String tenant) {
        boolean assigned = processor != null;
        return new Job(
                id,
                type,
                assigned ? JobState.ASSIGNED : JobState.QUEUED,
                priority,
                assigned ? 1 : 0,
                maxAttempts,
                timeoutSeconds,
                processor,
                submittedAt,
                assigned ? submittedAt : null,
                null,
                null,
                args,
                config,
                env == null || env.isEmpty() ? null : env,
                null,
                null,
                null,
                null,
                null,
                null,
                submittedBy,
                tenant);
    }

    /** The job with {@code env} in place of its own (e.g. its values hidden from a reader who may not see them). */
    public Job withEnv(Map<String, String> env) {
        return new Job(
                id,
                type,
                state,
                priority,
                attempts,
                maxAttempts,
                timeoutSeconds,
                processor,
                submittedAt,
                assignedAt,
                startedAt,
                finishedAt,
                args,
                config,
                env,
                result,
                error,
                sweep,
                trial,
                progress,
                members,
                submittedBy,
                tenant);
    }

    /** The job with {@code config}, {@code args} and {@code result} in place of its own (e.g. hidden from a reader). */
    public Job withDetails(JsonNode config, List<String> args, Result result) {
        return new Job(
                id,
                type,
                state,
                priority,
                attempts,
                maxAttempts,
                timeoutSeconds,
                processor,
                submittedAt,
                assignedAt,
                startedAt,
                finishedAt,
                args,
                config,
                env,
                result,
                error,
                sweep,
                trial,
                progress,
                members,
                submittedBy,
                tenant);
    }

    /**
     * Whether the job has ended (its state is one of {@link JobState#ended()}'s): the API says so as
     * {@code "ended": true|false}, so that clients need not list the end states themselves.
     */
    @JsonProperty(value = "ended", access = JsonProperty.Access.READ_ONLY)
    public boolean ended() {
        return state != null && state.ended();
    }

    public static Job from(Map<String, String> h, ObjectMapper json) {
        JobState state = JobState.parse(h.get(JobHash.STATE));
        Result result = h.containsKey(JobHash.EXIT_CODE)
                ? new Result(
                        integer(h.get(JobHash.EXIT_CODE)), tree(json, h.get(JobHash.METRICS)), h.get(JobHash.LOG_TAIL))
                : null;
        String error = h.get(JobHash.ERROR);
        return new Job(
                h.get(JobHash.ID),
                h.get(JobHash.TYPE),
                state,
                integer(h.get(JobHash.PRIORITY)),
                integer(h.get(JobHash.ATTEMPTS)),
                integer(h.get(JobHash.MAX_ATTEMPTS)),
                integer(h.get(JobHash.TIMEOUT_SECONDS)),
                blankToNull(h.get(JobHash.PROCESSOR)),
                Timestamps.iso(h.get(JobHash.SUBMITTED_AT)),
                Timestamps.iso(h.get(JobHash.ASSIGNED_AT)),
                Timestamps.iso(h.get(JobHash.STARTED_AT)),
                Timestamps.iso(h.get(JobHash.FINISHED_AT)),
                read(json, h.get(JobHash.ARGS), new TypeReference<>() {}),
                tree(json, h.get(JobHash.CONFIG)),
                read(json, h.get(JobHash.ENV), new TypeReference<>() {}),
                result,
                state == JobState.SUCCEEDED || error == null || error.isEmpty() ? null : error,
                blankToNull(h.get(JobHash.SWEEP)),
                integer(h.get(JobHash.TRIAL)),
                tree(json, h.get(JobHash.PROGRESS)),
                members(h),
                blankToNull(h.get(JobHash.SUBMITTED_BY)),
                blankToNull(h.get(JobHash.TENANT)));
    }

    /** A gang job's members and how each ended, e.g. {"worker-0": "SUCCEEDED (exit 0)"}; null for other jobs. */
    private static Map<String, String> members(Map<String, String> h) {
        Map<String, String> out = new TreeMap<>();
        h.forEach((k, v) -> {
            if (k.startsWith(JobHash.MEMBER_PREFIX)) {
                out.put(k.substring(JobHash.MEMBER_PREFIX.length()), v);
            }
        });
        return out.isEmpty() ? null : out;
    }

    private static String blankToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    private static Integer integer(String s) {
        try {
            return s == null || s.isEmpty() ? null : Integer.valueOf(s);
        } catch (NumberFormatException e) {
            return null; // a read shows what it can: one unreadable field does not fail the whole job
        }
    }

    private static JsonNode tree(ObjectMapper json, String s) {
        return StoredJson.tree(json, s);
    }

    private static <T> T read(ObjectMapper json, String s, TypeReference<T> type) {
        if (s == null || s.isEmpty()) {
            return null;
        }
        try {
            return json.readValue(s, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored job field is not JSON: " + s, e);
        }
    }
}
