package dev.warmpool.sweep;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.protocol.JobState;
import java.util.List;

/**
 * A sweep as {@code GET /sweeps/{id}} shows it: what it searches, how far it is, the best trial, every trial;
 * {@code warnings}, sentences about what may be wrong although nothing failed (an objective no trial reports).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Sweep(
        String id,
        String type,
        String state,
        Spec spec,
        Progress progress,
        Best best,
        String createdAt,
        String finishedAt,
        String error,
        List<Trial> trials,
        String submittedBy,
        List<String> warnings,
        String tenant,
        Cost cost,
        Driver driver) {

    /** This sweep with {@code trials} (null: without them, as a list shows it). */
    public Sweep withTrials(List<Trial> trials) {
        return with(trials, cost, driver);
    }

    /** This sweep with {@code d} as its driver, its cost counting {@code driverSeconds} of the driver's. */
    public Sweep withDriver(Driver d, Double driverSeconds) {
        return with(trials, cost == null ? null : cost.withDriverSeconds(driverSeconds), d);
    }

    private Sweep with(List<Trial> trials, Cost cost, Driver driver) {
        return new Sweep(
                id,
                type,
                state,
                spec,
                progress,
                best,
                createdAt,
                finishedAt,
                error,
                trials,
                submittedBy,
                warnings,
                tenant,
                cost,
                driver);
    }

    /** A server-side sweep's driver job ({@code "algorithm": "optuna"}): its id, and its state and error as it is. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Driver(String job, JobState state, String error) {}

    /**
     * What the sweep cost so far (docs/sweeps.md, "What a sweep cost"): {@code busySeconds}, the run time
     * (started to end) of its ended trials summed; {@code trials}, the trials that ended; {@code coldStarts},
     * the trials that waited for a processor's start (each the first job of a processor started after it was queued);
     * {@code idleSeconds}, the time processors stayed idle between two of its trials (one ended there, then the
     * next was taken there, with nothing between).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Cost(double busySeconds, int trials, int coldStarts, double idleSeconds, Double driverSeconds) {
        /** A sweep's cost with its driver's run time (started to end, or to now while it runs). */
        public Cost withDriverSeconds(Double seconds) {
            return new Cost(busySeconds, trials, coldStarts, idleSeconds, seconds);
        }
    }

    /** The request as it was normalized and stored: defaults filled in, the seed chosen. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Spec(
            String algorithm,
            Long seed,
            JsonNode space,
            List<String> args,
            int parallelism,
            Objective objective,
            EarlyStopping earlyStopping,
            Integer maxFailedTrials,
            OptunaCatalogue.Part sampler,
            OptunaCatalogue.Part pruner,
            String driver) {}

    /** Trials by where they are: {@code active} were released (queued or running) and have not ended. */
    public record Progress(
            int done, int total, int active, int succeeded, int failed, int cancelled, int earlyStopped) {}

    /** The best completed trial so far by the objective. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Best(String trial, double value, JsonNode config, JsonNode metrics) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Trial(
            String id,
            int index,
            JobState state,
            JsonNode config,
            JsonNode metrics,
            JsonNode progress,
            Integer attempts,
            String processor,
            String submittedAt,
            String startedAt,
            String finishedAt,
            String error) {}
}
