package dev.warmpool.service;

import dev.warmpool.pool.Ids;

/** What the services do with a caller's words before using or quoting them: pure, no state. */
final class UserInput {
    private UserInput() {}

    /** User input as it may be quoted back: at most 64 characters. */
    static String shown(String s) {
        return s == null ? "" : s.length() > 64 ? s.substring(0, 64) + "..." : s;
    }

    static void checkType(String type) {
        checkType(type, "type");
    }

    /** {@code field}: where the type was given, e.g. "jobs[0].type" in a batch. */
    static void checkType(String type, String field) {
        if (!Ids.validType(type)) {
            throw Refusal.invalid(
                    field,
                    "The job type '" + shown(type) + "' is not a valid name: use lower-case letters, "
                            + "digits and '-', at most 40 characters, starting and ending with a letter or digit.");
        }
    }
}
