package dev.warmpool.protocol.script;

import java.util.List;
import java.util.Map;

/** A job ready to store: its id, priority and hash fields. */
public record NewJob(String id, int priority, Map<String, String> fields) {
    /** Appends the job's field/value pairs to a script's arguments. */
    void addFieldsTo(List<String> args) {
        fields.forEach((k, v) -> {
            args.add(k);
            args.add(v);
        });
    }
}
