package dev.warmpool.sweep;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Pattern;

/**
 * The median rule: a trial whose objective at a step (from {@code minSteps} on) is worse than
 * the median of at least {@code minTrials} completed trials at that step is stopped.
 */
public record EarlyStopping(
        @Pattern(regexp = "median", message = "must be \"median\", the only rule there is")
        String rule,

        @Min(value = 1, message = "must be 1 or more")
        @Max(value = 1_000_000_000, message = "must be at most 1000000000")
        Integer minSteps,
        // a sweep has at most 10000 trials (SweepService.MAX_TRIALS)
        @Min(value = 1, message = "must be 1 or more") @Max(value = 10_000, message = "must be at most 10000")
        Integer minTrials) {}
