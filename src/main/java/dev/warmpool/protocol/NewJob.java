package dev.warmpool.protocol;

import java.util.Map;

/** A job ready to store: its id, priority and hash fields. */
public record NewJob(String id, int priority, Map<String, String> fields) {
}
