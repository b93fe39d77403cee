package dev.warmpool.protocol.script;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.warmpool.protocol.KeySchema;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Each script's header lists the keys it reads and writes ({@code --   wp:{type}:job:{jobId}   RW  ...}); these
 * hold the tables to the code: every key the script builds, itself or in the lua/lib helpers it calls (and
 * those call), is in its table, every row names such a key and one of {@link KeySchema#patterns()}, and
 * every header line that starts like a row is one.
 * Keys are compared by shape: {@code key('sweep', sid, 'trial', jid)} is {@code wp:{type}:sweep:{}:trial:{}}.
 */
@Tag("unit")
class LuaKeyTablesTests {
    private static final Pattern ROW = Pattern.compile("^--\\s+(wp:\\{type\\}:\\S+)\\s+(R|W|RW)\\s", Pattern.MULTILINE);
    private static final Pattern KEY_CALL = Pattern.compile("\\bkey\\(([^()]*)\\)");
    /** A header line that starts like a row: it must be one. */
    private static final Pattern ROW_LIKE =
            Pattern.compile("^--\\s+wp:\\{type\\}:[^\\s,]+(?:,|\\s{2,}).*$", Pattern.MULTILINE);
    /** A helper's definition in lua/lib: its name, to the {@code end} at the start of a line. */
    private static final Pattern FUNCTION = Pattern.compile(
            "^(?:local function (\\w+)|(\\w+) = function)\\((?:[^\\n]*\\bend[ \\t]*$|.*?^end\\b)",
            Pattern.MULTILINE | Pattern.DOTALL);
    /** The helpers' names for fixed keys (lib/core.lua, lib/tenants.lua, lib/warmth.lua). */
    private static final Map<String, String> NAMED = Map.of(
            "POOL", "pool",
            "IDLE", "idle",
            "QUEUE", "queue",
            "JOBS", "jobs",
            "PROCS", "procs",
            "GANGS", "gangs",
            "TENANTS", "tenants",
            "WAITING", "waiting",
            "WARMTH", "warmth");

    @Test
    void everyKeyAScriptBuildsIsInItsTableAndEveryRowIsOneItCanBuild() {
        Set<String> known = new TreeSet<>();
        KeySchema.patterns().forEach(p -> known.add(shape(p)));
        Map<String, List<String>> problems = new TreeMap<>();
        for (Script s : Script.values()) {
            String own = read(s.name().toLowerCase());
            Set<String> rows = new TreeSet<>();
            Matcher m = ROW.matcher(own);
            while (m.find()) {
                rows.add(shape(m.group(1)));
            }
            Set<String> built = built(code(own));
            for (String helper : called(code(own))) {
                built.addAll(built(HELPERS.get(helper)));
            }
            List<String> wrong = new ArrayList<>();
            Matcher like = ROW_LIKE.matcher(own);
            while (like.find()) {
                if (!ROW.matcher(like.group() + " ").find()) {
                    wrong.add("its table has a line that is not one key, R/W/RW and what: " + like.group());
                }
            }
            for (String k : built) {
                if (!rows.contains(k)) {
                    wrong.add("builds " + k + " (itself or in a helper it calls), which its table lacks");
                }
            }
            for (String r : rows) {
                if (!built.contains(r)) {
                    wrong.add("its table lists " + r + ", which neither it nor the helpers it calls build");
                }
                if (!known.contains(r)) {
                    wrong.add("its table lists " + r + ", which is not a KeySchema key");
                }
            }
            if (!wrong.isEmpty()) {
                problems.put(s.name().toLowerCase() + ".lua", wrong);
            }
        }
        assertEquals(Map.of(), problems);
    }

    /** The check sees keys at all: a script that builds keys of its own has rows (not a parser that reads none). */
    @Test
    void theTablesAreRead() {
        String finish = read("finish");
        assertFalse(built(code(finish)).isEmpty());
        assertEquals(
                shape("wp:{type}:sweep:{id}:trial:{jobId}"),
                built(code("x = key('sweep', sid, 'trial', jid)")).iterator().next());
    }

    /** Each helper of lua/lib by name: its body without comments. */
    private static final Map<String, String> HELPERS = helpers();

    private static Map<String, String> helpers() {
        Map<String, String> out = new TreeMap<>();
        for (String lib : Script.LIB) {
            Matcher m = FUNCTION.matcher(code(read("lib/" + lib)));
            while (m.find()) {
                out.put(m.group(1) != null ? m.group(1) : m.group(2), m.group());
            }
        }
        return out;
    }

    /** The helpers {@code code} calls, and those they call, and so on. */
    private static Set<String> called(String code) {
        Set<String> out = new TreeSet<>();
        List<String> todo = new ArrayList<>(List.of(code));
        while (!todo.isEmpty()) {
            String text = todo.remove(todo.size() - 1);
            for (Map.Entry<String, String> h : HELPERS.entrySet()) {
                if (!out.contains(h.getKey())
                        && Pattern.compile("(?<![\\w.:])" + h.getKey() + "\\(")
                                .matcher(text)
                                .find()) {
                    out.add(h.getKey());
                    todo.add(h.getValue());
                }
            }
        }
        return out;
    }

    /** The keys a text builds, by shape: key(...) calls with literal and variable parts, and the named fixed keys. */
    private static Set<String> built(String code) {
        Set<String> out = new TreeSet<>();
        Matcher m = KEY_CALL.matcher(code);
        while (m.find()) {
            if (m.group(1).contains("...")) {
                continue; // key's own definition
            }
            StringBuilder k = new StringBuilder("wp:{type}");
            for (String part : m.group(1).split(",")) {
                String p = part.trim();
                k.append(':').append(p.startsWith("'") && p.endsWith("'") ? p.substring(1, p.length() - 1) : "{}");
            }
            out.add(k.toString());
        }
        for (Map.Entry<String, String> named : NAMED.entrySet()) {
            if (Pattern.compile("\\b" + named.getKey() + "\\b(?! = key)")
                    .matcher(code)
                    .find()) {
                out.add("wp:{type}:" + named.getValue());
            }
        }
        return out;
    }

    /** The text without its comments. */
    private static String code(String lua) {
        return lua.replaceAll("--[^\n]*", "");
    }

    private static String shape(String pattern) {
        return pattern.replaceAll("\\{(?!type\\})[^}]*\\}", "{}");
    }

    private static String read(String name) {
        String path = "lua/" + name + ".lua";
        try (InputStream in = LuaKeyTablesTests.class.getClassLoader().getResourceAsStream(path)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
