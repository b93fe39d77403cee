package dev.warmpool.api;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Map;

/**
 * The body of {@code POST /sweeps}: a search space, how to draw configurations from it, and how
 * to run them as trial jobs of the pool of {@code type}. Only {@code type} and {@code space} are required.
 */
public record SweepRequest(
        @NotEmpty(message = "must name the job type of the trials, e.g. \"pytorch-cpu\"") String type,
        @Size(max = 1024, message = "may have at most 1024 elements")
        List<@NotNull(message = "must not contain null") @Size(max = 65_536, message = "must be at most 65536 characters") String> args,
        JsonNode space,
        @Pattern(regexp = "grid|random", message = "must be \"grid\" (every combination) or \"random\" (with trials and a seed)")
        String algorithm,
        @Min(value = 1, message = "must be 1 or more") @Max(value = 10_000, message = "must be at most 10000")
        Integer trials,
        Long seed,
        @Min(value = 1, message = "must be 1 or more") @Max(value = 10_000, message = "must be at most 10000")
        Integer parallelism,
        @Valid Objective objective,
        @Min(value = 0, message = "must be 0 or more") Integer maxFailedTrials,
        @Valid EarlyStopping earlyStopping,
        @Size(max = 256, message = "may have at most 256 variables")
        Map<@NotEmpty @Size(max = 256) String, @NotNull(message = "must not be null") @Size(max = 65_536) String> env,
        @Min(value = -1000, message = "must be -1000 or more") @Max(value = 1000, message = "must be 1000 or less")
        Integer priority,
        @Min(value = 1, message = "must be 1 second or more") @Max(value = 604_800, message = "must be at most 604800 (7 days)")
        Integer timeoutSeconds,
        @Min(value = 1, message = "must be 1 or more") @Max(value = 100, message = "must be at most 100")
        Integer maxAttempts) {

    /** The metric a trial's result is judged by, and which way is better. */
    public record Objective(
            @NotEmpty(message = "must name a metric of the trials' results, e.g. \"loss\"") @Size(max = 256) String metric,
            @Pattern(regexp = "minimize|maximize", message = "must be \"minimize\" or \"maximize\"") String goal) {
    }

    /**
     * The median rule: a trial whose objective at a step (from {@code minSteps} on) is worse than
     * the median of at least {@code minTrials} completed trials at that step is stopped.
     */
    public record EarlyStopping(
            @Pattern(regexp = "median", message = "must be \"median\", the only rule there is") String rule,
            @Min(value = 1, message = "must be 1 or more") Integer minSteps,
            @Min(value = 1, message = "must be 1 or more") Integer minTrials) {
    }
}
