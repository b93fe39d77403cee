package dev.warmpool.protocol.script;

import java.util.List;

/**
 * pool_put.lua: a pool created or updated; refused when the update would turn a gang pool into a
 * plain one or back (its processors could not follow).
 */
public enum PoolPutReply {
    CREATED,
    UPDATED,
    GANG_CHANGE;

    /** {@link #args(String, int, int, long, String, String, int, boolean, String)} with the default fair share. */
    public static List<String> args(
            String specJson,
            int minIdle,
            int maxSize,
            long idleTimeoutMillis,
            String commandJson,
            String envJson,
            int maxQueued,
            boolean gang) {
        return args(specJson, minIdle, maxSize, idleTimeoutMillis, commandJson, envJson, maxQueued, gang, "");
    }

    /**
     * ARGV after the prefix: the spec as PUT (JSON), then the fields scripts read without parsing
     * it: minIdle, maxSize, idle timeout (ms), command (JSON), env (JSON), maxQueued, gang ("1" or ""),
     * fair share ({@code PoolSpec.fairJson}: JSON, "" for the defaults).
     */
    public static List<String> args(
            String specJson,
            int minIdle,
            int maxSize,
            long idleTimeoutMillis,
            String commandJson,
            String envJson,
            int maxQueued,
            boolean gang,
            String fairJson) {
        return List.of(
                specJson,
                Integer.toString(minIdle),
                Integer.toString(maxSize),
                Long.toString(idleTimeoutMillis),
                commandJson,
                envJson,
                Integer.toString(maxQueued),
                gang ? "1" : "",
                fairJson);
    }

    public static PoolPutReply decode(Object raw) {
        return switch (Replies.string(raw)) {
            case "created" -> CREATED;
            case "updated" -> UPDATED;
            case "GANGCHANGE" -> GANG_CHANGE;
            default -> throw Replies.unexpected(Script.POOL_PUT, raw);
        };
    }
}
