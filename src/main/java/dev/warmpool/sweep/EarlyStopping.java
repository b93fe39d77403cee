package dev.warmpool.sweep;

import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Pattern;

/**
 * The median rule: a trial whose objective at a step (from {@code minSteps} on) is worse than
 * the median of at least {@code minTrials} completed trials at that step is stopped.
 */
public record EarlyStopping(
        @Pattern(regexp = "median", message = "must be \"median\", the only rule there is") String rule,
        @Min(value = 1, message = "must be 1 or more") Integer minSteps,
        @Min(value = 1, message = "must be 1 or more") Integer minTrials) {
}
