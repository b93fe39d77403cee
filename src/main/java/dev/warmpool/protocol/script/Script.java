package dev.warmpool.protocol.script;

import dev.warmpool.protocol.KeySchema;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The atomic transitions, one Lua file each under {@code lua/}, with the helpers it names
 * ({@code --- @include "dispatch"}, as BullMQ's scripts do) from {@code lua/lib/} in front:
 * {@code core} always, the others with what they include themselves, in {@link #LIB}'s order
 * (a helper calls only helpers before it). Plain Java, so that the agent (which has no Quarkus)
 * runs the very same scripts.
 */
public enum Script {
    POOL_PUT,
    POOL_DELETE,
    POOL_GC,
    SUBMIT,
    SUBMIT_BATCH,
    CANCEL,
    REGISTER,
    HEARTBEAT,
    START,
    FINISH,
    DEREGISTER,
    START_FAILED,
    SPAWN,
    SPAWN_GANG,
    RETIRE,
    LOST,
    OVERDUE,
    SNAPSHOT,
    STATS,
    LIST_JOBS,
    REPORT,
    LOG,
    SWEEP_PUT,
    SWEEP_GET,
    SWEEP_LIST,
    SWEEP_CANCEL,
    SWEEP_ADD,
    SWEEP_JOURNAL,
    TENANTS;

    /** The helpers, in the order they are put in front of a script. */
    public static final List<String> LIB =
            List.of("core", "idempotency", "warmth", "tenants", "jobs", "gang", "dispatch", "ends", "drop");

    // read and hashed on first use, not all 29 at class initialisation: an agent uses six of
    // them, and hashing them all (each with its helpers in front) took about 20 ms of its start
    private volatile String source;
    private volatile String sha;

    public String source() {
        String s = source;
        if (s == null) {
            String own = read(name().toLowerCase());
            StringBuilder b = new StringBuilder();
            for (String lib : helpers(own)) {
                b.append(read("lib/" + lib)).append('\n');
            }
            s = b.append(own).toString();
            source = s; // a race only computes the same text twice
        }
        return s;
    }

    /** The helpers a script's text needs: core, what it includes, and what those include, in {@link #LIB}'s order. */
    static List<String> helpers(String text) {
        Set<String> wanted = new HashSet<>(List.of("core"));
        Deque<String> todo = new ArrayDeque<>(includes(text));
        while (!todo.isEmpty()) {
            String next = todo.pop();
            if (!LIB.contains(next)) {
                throw new IllegalStateException("a script includes \"" + next + "\", which is not one of " + LIB);
            }
            if (wanted.add(next)) {
                todo.addAll(includes(read("lib/" + next)));
            }
        }
        return LIB.stream().filter(wanted::contains).toList();
    }

    /**
     * The names on the text's {@code --- @include "name"} lines. Found with indexOf, not a regular
     * expression: an agent assembles its first script while it starts, still interpreted, and the
     * expression's scan of every helper took tens of milliseconds of it.
     */
    static List<String> includes(String text) {
        List<String> out = new ArrayList<>();
        String mark = "--- @include \"";
        for (int at = text.indexOf(mark); at >= 0; at = text.indexOf(mark, at + 1)) {
            if (at > 0 && text.charAt(at - 1) != '\n') {
                continue;
            }
            int from = at + mark.length();
            int to = from;
            while (to < text.length() && text.charAt(to) >= 'a' && text.charAt(to) <= 'z') {
                to++;
            }
            int after = to + 1;
            if (to > from
                    && to < text.length()
                    && text.charAt(to) == '"'
                    && (after == text.length() || text.charAt(after) == '\n' || text.charAt(after) == '\r')) {
                out.add(text.substring(from, to));
            }
        }
        return out;
    }

    /** The SHA1 if {@link #sha} has been asked for already, else null. */
    public String shaIfHashed() {
        return sha;
    }

    /** The SHA1 that EVALSHA takes. */
    public String sha() {
        String h = sha;
        if (h == null) {
            h = sha1(source());
            sha = h;
        }
        return h;
    }

    /** KEYS and ARGV of a call on the pool of {@code type}: numkeys 1, the pool key, the prefix, then args. */
    public List<String> keysAndArgs(String type, List<String> args) {
        List<String> call = new ArrayList<>(args.size() + 3);
        call.add("1");
        call.add(KeySchema.pool(type));
        call.add(KeySchema.prefix(type));
        call.addAll(args);
        return call;
    }

    private static String read(String name) {
        String path = "lua/" + name + ".lua";
        try (InputStream in = Script.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing script resource " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha1(String text) {
        return Sha1.hex(text.getBytes(StandardCharsets.UTF_8));
    }
}
