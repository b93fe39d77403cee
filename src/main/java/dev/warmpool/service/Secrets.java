package dev.warmpool.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.warmpool.pool.Job;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Who sees the values of an {@code env}: a pool's (its own, its gang roles', its template's) only
 * admins, who set them; a job's only admins and the job's own submitter, who chose them. Everyone
 * else sees the names with each value {@link #REDACTED}: env is where {@code HF_TOKEN} and
 * {@code WANDB_API_KEY} go, and a viewer's token must not be a way to read them. The names stay,
 * so a reader still learns what a pool or job is given.
 */
public final class Secrets {
    /** What a hidden value reads as. */
    public static final String REDACTED = "***";

    private Secrets() {}

    /** The pool as {@code caller} may see it. */
    public static PoolView shownTo(PoolView pool, Caller caller) {
        return caller.admin() || pool.spec() == null ? pool : redacted(pool);
    }

    public static List<PoolView> poolsShownTo(List<PoolView> pools, Caller caller) {
        return caller.admin() ? pools : pools.stream().map(Secrets::redacted).toList();
    }

    /** The pool with every env value hidden, for a reader who is no admin (or for everyone at once, as the dashboard's feed). */
    public static PoolView redacted(PoolView pool) {
        return pool.spec() == null ? pool : pool.withSpec(pool.spec().withEnvValues(Secrets::masked));
    }

    /** The job as {@code caller} may see it. */
    public static Job shownTo(Job job, Caller caller) {
        return caller.admin() || caller.name().equals(job.submittedBy()) ? job : redacted(job);
    }

    public static List<Job> jobsShownTo(List<Job> jobs, Caller caller) {
        return jobs.stream().map(j -> shownTo(j, caller)).toList();
    }

    /** The job with its env values hidden. */
    public static Job redacted(Job job) {
        return job.env() == null || job.env().isEmpty() ? job : job.withEnv(masked(job.env()));
    }

    /**
     * The job without what it was given or printed: each config value, each arg and each env
     * value {@link #REDACTED}, and no log tail. The names (config keys) stay, as env's do.
     */
    public static Job withoutDetails(Job job) {
        Job.Result r = job.result();
        return redacted(job)
                .withDetails(
                        maskedValues(job.config()),
                        job.args() == null
                                ? null
                                : job.args().stream().map(a -> REDACTED).toList(),
                        r == null ? null : new Job.Result(r.exitCode(), r.metrics(), null));
    }

    /** A config with every leaf value {@link #REDACTED} and its keys kept. */
    static JsonNode maskedValues(JsonNode node) {
        if (node == null || node.isNull()) {
            return node;
        }
        var nodes = JsonNodeFactory.instance;
        if (node.isObject()) {
            var out = nodes.objectNode();
            node.fields().forEachRemaining(e -> out.set(e.getKey(), maskedValues(e.getValue())));
            return out;
        }
        if (node.isArray()) {
            var out = nodes.arrayNode();
            node.forEach(n -> out.add(maskedValues(n)));
            return out;
        }
        return nodes.textNode(REDACTED);
    }

    static Map<String, String> masked(Map<String, String> env) {
        Map<String, String> out = new LinkedHashMap<>();
        env.keySet().forEach(name -> out.put(name, REDACTED));
        return out;
    }
}
