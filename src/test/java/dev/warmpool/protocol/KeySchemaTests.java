package dev.warmpool.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The key builders, the key table of docs/redis-keys.md and the names the Lua scripts give keys say the same. */
@Tag("unit")
class KeySchemaTests {
    @Test
    void theReadmesKeyTableListsExactlyTheKeysTheBuildersName() throws IOException {
        String table = Files.readString(Path.of("docs", "redis-keys.md"));
        Set<String> rows = new TreeSet<>();
        Matcher m = Pattern.compile("(?m)^\\| `(wp:[^`]+)` \\|").matcher(table);
        while (m.find()) {
            rows.add(m.group(1));
        }
        assertEquals(new TreeSet<>(KeySchema.patterns()), rows);
    }

    @Test
    void everyKeyAScriptNamesIsOneTheBuildersName() throws IOException {
        Set<String> builders = new TreeSet<>();
        for (String p : KeySchema.patterns()) {
            if (p.startsWith(KeySchema.prefix("type"))) {
                // wp:{type}:sweep:{id}:at:{step} -> sweep:*:at:*
                builders.add(p.substring(KeySchema.prefix("type").length()).replaceAll("\\{[^}]+}", "*"));
            }
        }
        Set<String> used = new TreeSet<>();
        // key('sweep', sid, 'at', step) -> sweep:*:at:*
        Pattern call = Pattern.compile(
                "key\\(((?:'[a-z_]+'|[A-Za-z_\\[\\]0-9]+)(?:,\\s*(?:'[a-z_]+'|[A-Za-z_\\[\\]0-9]+))*)\\)");
        try (Stream<Path> scripts = Files.walk(Path.of("src/main/resources/lua"))) {
            for (Path script :
                    scripts.filter(f -> f.toString().endsWith(".lua")).toList()) {
                Matcher m = call.matcher(Files.readString(script));
                while (m.find()) {
                    if (m.group(0).startsWith("key(...)")) {
                        continue;
                    }
                    StringBuilder name = new StringBuilder();
                    for (String part : m.group(1).split(",\\s*")) {
                        name.append(name.isEmpty() ? "" : ":")
                                .append(part.startsWith("'") ? part.replace("'", "") : "*");
                    }
                    used.add(name.toString());
                }
            }
        }
        assertTrue(used.size() > 10, "the scripts name keys with key(...): " + used);
        assertTrue(builders.containsAll(used), "keys the scripts name without a builder: " + minus(used, builders));
    }

    private static Set<String> minus(Set<String> a, Set<String> b) {
        Set<String> out = new TreeSet<>(a);
        out.removeAll(b);
        return out;
    }
}
