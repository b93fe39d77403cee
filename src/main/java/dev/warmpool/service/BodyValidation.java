package dev.warmpool.service;

import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Bean Validation results as one problem that names every bad field. */
final class BodyValidation {
    private BodyValidation() {}

    static <T> T valid(Validator validator, T value, String what) {
        if (value == null) {
            throw new Refusal(
                    Refusal.Kind.INVALID,
                    "invalid-request",
                    "Invalid request",
                    "The request needs a JSON body: " + what + ".");
        }
        Set<ConstraintViolation<T>> violations = validator.validate(value);
        if (violations.isEmpty()) {
            return value;
        }
        List<ConstraintViolation<T>> sorted = violations.stream()
                .sorted(Comparator.comparing(v -> v.getPropertyPath().toString()))
                .toList();
        String field = field(sorted.get(0));
        StringBuilder detail = new StringBuilder();
        List<Map<String, String>> errors = sorted.stream()
                .map(v -> {
                    if (!detail.isEmpty()) {
                        detail.append(' ');
                    }
                    detail.append("'")
                            .append(field(v))
                            .append("' ")
                            .append(v.getMessage())
                            .append('.');
                    return Map.of("field", field(v), "message", v.getMessage());
                })
                .toList();
        throw Refusal.invalid(field, detail.toString()).with("errors", errors);
    }

    /** The JSON path of a violation: {@code args[2]} rather than Bean Validation's {@code args[2].<list element>}. */
    private static String field(ConstraintViolation<?> v) {
        return v.getPropertyPath().toString().replaceAll("\\.<[^>]+>", "");
    }
}
