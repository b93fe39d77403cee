package dev.warmpool.service;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;

/** The body of {@code POST /jobs/batch}: up to 1000 jobs of one type, taken all or none. */
public record BatchRequest(
        @NotNull(message = "must list the jobs, e.g. [{\"type\": \"pytorch-cpu\"}]")
        @Size(min = 1, max = 1000, message = "must hold 1 to 1000 jobs")
        List<@NotNull(message = "must not contain null") @Valid JobRequest> jobs) {}
