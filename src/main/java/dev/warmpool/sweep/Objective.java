package dev.warmpool.sweep;

import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/** The metric a trial's result is judged by, and which way is better. */
public record Objective(
        @NotEmpty(message = "must name a metric of the trials' results, e.g. \"loss\"") @Size(max = 256)
        String metric,

        @Pattern(regexp = "minimize|maximize", message = "must be \"minimize\" or \"maximize\"")
        String goal) {}
