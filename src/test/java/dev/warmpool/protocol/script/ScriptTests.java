package dev.warmpool.protocol.script;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Each script is assembled from the helpers it names, and gets every helper it calls. */
@Tag("unit")
class ScriptTests {
    static final Pattern DEFINED = Pattern.compile("(?m)^(?:local function ([a-z_]+)\\(|([a-z_]+) = function\\()");

    static List<String> helperFunctions() throws IOException {
        List<String> out = new ArrayList<>();
        for (String lib : Script.LIB) {
            Matcher m = DEFINED.matcher(Files.readString(Path.of("src/main/resources/lua/lib/" + lib + ".lua")));
            while (m.find()) {
                out.add(m.group(1) != null ? m.group(1) : m.group(2));
            }
        }
        return out;
    }

    @Test
    void everyHelperAScriptCallsIsInFrontOfIt() throws IOException {
        List<String> helpers = helperFunctions();
        assertTrue(helpers.size() > 20, helpers.toString());
        for (Script script : Script.values()) {
            String source = script.source();
            TreeSet<String> defined = new TreeSet<>();
            Matcher d = DEFINED.matcher(source);
            while (d.find()) {
                defined.add(d.group(1) != null ? d.group(1) : d.group(2));
            }
            TreeSet<String> missing = new TreeSet<>();
            for (String h : helpers) {
                if (Pattern.compile("(?<![\\w.])" + h + "\\(").matcher(source).find() && !defined.contains(h)) {
                    missing.add(h);
                }
            }
            assertEquals(new TreeSet<>(), missing, script + " calls helpers it does not include");
        }
    }

    @Test
    void aScriptGetsOnlyTheHelpersItNamesAndTheirsInOrder() {
        assertEquals(List.of("core"), Script.helpers("return 1"));
        assertEquals(
                List.of("core", "warmth", "tenants", "jobs", "gang", "dispatch"),
                Script.helpers("--- @include \"dispatch\"\n"));
        assertEquals(
                List.of("core", "idempotency", "warmth", "tenants", "jobs", "gang", "dispatch"),
                Script.helpers("--- @include \"dispatch\"\n--- @include \"idempotency\"\n"));
        assertTrue(Script.HEARTBEAT.source().lines().count() < 60, "the heartbeat carries the core helpers alone");
    }

    @Test
    void readsOnlyWholeIncludeLines() {
        assertEquals(
                List.of("drop", "gang", "ends"),
                Script.includes("--- @include \"drop\"\nlocal x = 1\n--- @include \"gang\"\r\n--- @include \"ends\""));
        assertEquals(List.of(), Script.includes("  --- @include \"drop\"\n"), "not at the start of a line");
        assertEquals(List.of(), Script.includes("--- @include \"drop\" -- why\n"), "more after the name");
        assertEquals(List.of(), Script.includes("--- @include \"Drop\"\n--- @include \"\"\n--- @include \"drop"));
    }
}
