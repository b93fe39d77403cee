package dev.warmpool.service;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Map;

/** The body of {@code POST /jobs}. Only {@code type} is required. */
public record JobRequest(
        @NotEmpty(message = "must name the job type, e.g. \"pytorch-cpu\"")
        String type,

        @Size(max = 1024, message = "may have at most 1024 elements")
        List<
                        @NotNull(message = "must not contain null")
                        @Size(max = 65_536, message = "must be at most 65536 characters") String>
                args,

        JsonNode config,

        @Size(max = 256, message = "may have at most 256 variables")
        Map<@NotEmpty @Size(max = 256) String, @NotNull(message = "must not be null") @Size(max = 65_536) String> env,

        @Min(value = -1000, message = "must be -1000 or more") @Max(value = 1000, message = "must be 1000 or less")
        Integer priority,

        @Min(value = 1, message = "must be 1 second or more")
        @Max(value = 604_800, message = "must be at most 604800 (7 days)")
        Integer timeoutSeconds,

        @Min(value = 1, message = "must be 1 or more") @Max(value = 100, message = "must be at most 100")
        Integer maxAttempts) {}
