package dev.warmpool.service;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.sweep.EarlyStopping;
import dev.warmpool.sweep.Objective;
import dev.warmpool.sweep.OptunaCatalogue;
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
 * to run them as trial jobs of the pool of {@code type}. Only {@code type} and {@code space} are required
 * (an external sweep, whose driver adds each trial, needs {@code trials} and may leave the space out).
 */
public record SweepRequest(
        @NotEmpty(message = "must name the job type of the trials, e.g. \"pytorch-cpu\"")
        String type,

        @Size(max = 1024, message = "may have at most 1024 elements")
        List<
                        @NotNull(message = "must not contain null")
                        @Size(max = 65_536, message = "must be at most 65536 characters") String>
                args,

        JsonNode space,

        @Pattern(
                regexp = "grid|random|external|optuna",
                message = "must be \"grid\" (every combination), \"random\" (with trials and a seed) or \"external\""
                        + " (its driver adds each trial: POST /sweeps/{id}/trials) or \"optuna\" (an Optuna study the manager"
                        + " runs as a driver job: sampler, pruner)")
        String algorithm,

        @Min(value = 1, message = "must be 1 or more") @Max(value = 10_000, message = "must be at most 10000")
        Integer trials,
        // 2^53 - 1: the largest whole number a JSON client that reads numbers as doubles (JavaScript) shows exactly
        @Min(value = 0, message = "must be 0 or more")
        @Max(
                value = 9_007_199_254_740_991L,
                message = "must be at most 9007199254740991 (2^53 - 1), so that every client reads it back exactly")
        Long seed,

        @Min(value = 1, message = "must be 1 or more") @Max(value = 10_000, message = "must be at most 10000")
        Integer parallelism,

        @Valid Objective objective,

        @Min(value = 0, message = "must be 0 or more")
        @Max(value = 10_000, message = "must be at most 10000, the most trials a sweep has")
        Integer maxFailedTrials,

        @Valid EarlyStopping earlyStopping,

        @Size(max = 256, message = "may have at most 256 variables")
        Map<@NotEmpty @Size(max = 256) String, @NotNull(message = "must not be null") @Size(max = 65_536) String> env,

        @Min(value = -1000, message = "must be -1000 or more") @Max(value = 1000, message = "must be 1000 or less")
        Integer priority,

        @Min(value = 1, message = "must be 1 second or more")
        @Max(value = 604_800, message = "must be at most 604800 (7 days)")
        Integer timeoutSeconds,

        @Min(value = 1, message = "must be 1 or more") @Max(value = 100, message = "must be at most 100")
        Integer maxAttempts,

        // "algorithm": "optuna": the study's sampler and pruner by Optuna's class names, and the pool its driver runs
        // on
        OptunaCatalogue.Part sampler,
        OptunaCatalogue.Part pruner,

        @Size(max = 63, message = "must be at most 63 characters")
        String driver) {}
