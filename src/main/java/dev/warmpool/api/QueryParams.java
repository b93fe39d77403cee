package dev.warmpool.api;

import dev.warmpool.protocol.JobState;
import java.util.Locale;

/** Query parameters parsed here, so that a bad one is a 400 naming it (JAX-RS would answer 404). */
final class QueryParams {
    private QueryParams() {}

    static int integer(String name, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw Problem.invalid(name, "'" + name + "' must be a whole number.");
        }
    }

    static boolean bool(String name, String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "true", "1", "yes", "" -> true;
            case "false", "0", "no" -> false;
            default -> throw Problem.invalid(name, "'" + name + "' must be true or false.");
        };
    }

    static JobState jobState(String name, String value) {
        try {
            return JobState.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw Problem.invalid(name, "'" + name + "' must be a job state, such as CANCELLED or EARLY_STOPPED.");
        }
    }
}
