package dev.warmpool.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

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
 * hold the tables to the code: every key a script's own text builds is in its table, every row names a key the
 * script (with the helpers in front of it) can build, and every row is one of {@link KeySchema#patterns()}.
 * Keys are compared by shape: {@code key('sweep', sid, 'trial', jid)} is {@code wp:{type}:sweep:{}:trial:{}}.
 */
@Tag("unit")
class LuaKeyTablesTests {
    private static final Pattern ROW = Pattern.compile("^--\\s+(wp:\\{type\\}:\\S+)\\s+(R|W|RW)\\s", Pattern.MULTILINE);
    private static final Pattern KEY_CALL = Pattern.compile("\\bkey\\(([^()]*)\\)");
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
            Set<String> reachable = built(code(s.source()));
            List<String> wrong = new ArrayList<>();
            for (String k : built) {
                if (!rows.contains(k)) {
                    wrong.add("builds " + k + ", which its table lacks");
                }
            }
            for (String r : rows) {
                if (!reachable.contains(r)) {
                    wrong.add("its table lists " + r + ", which neither it nor its helpers build");
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
