package dev.warmpool.protocol.script;

import dev.warmpool.protocol.JobState;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reading script replies in their plain-Java form (String, List, null). */
public final class Replies {
    private Replies() {}

    @SuppressWarnings("unchecked")
    public static List<Object> list(Object reply) {
        return reply instanceof List<?> l ? (List<Object>) l : List.of();
    }

    /** An array reply as it is, or a status reply ('NOPOOL') as a list of one. */
    public static List<Object> listOrStatus(Object reply) {
        return reply instanceof List<?> ? list(reply) : List.of(string(reply));
    }

    public static String string(Object reply) {
        return reply == null ? null : reply.toString();
    }

    /** A flat field/value list (HGETALL) as a map. */
    public static Map<String, String> hash(Object reply) {
        List<Object> flat = list(reply);
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            map.put(string(flat.get(i)), string(flat.get(i + 1)));
        }
        return map;
    }

    /** A script's 1 or 0 (Lua's true and false as Redis returns them). */
    public static boolean flag(Object reply) {
        return "1".equals(string(reply));
    }

    /** A job state in a reply, or null for "" (no job). */
    public static JobState jobState(Object reply) {
        return JobState.parse(string(reply));
    }

    /** A reply that the script's contract does not allow: a script and its decoder disagree. */
    static IllegalStateException unexpected(Script script, Object reply) {
        return new IllegalStateException(script.name().toLowerCase() + ".lua answered " + reply
                + ", which its decoder in dev.warmpool.protocol does not know");
    }

    /** The first element of an array reply, or the reply itself when it is a status string. */
    public static String status(Object reply) {
        return reply instanceof List<?> l ? (l.isEmpty() ? null : string(l.get(0))) : string(reply);
    }
}
