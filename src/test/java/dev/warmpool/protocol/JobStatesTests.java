package dev.warmpool.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The scripts and the Java name the same states and end the same ones. */
@Tag("unit")
class JobStatesTests {
    static String lib() throws IOException {
        return Files.readString(Path.of("src/main/resources/lua/lib/core.lua"));
    }

    @Test
    void theScriptsEndExactlyTheStatesJavaCallsEnded() throws IOException {
        String lib = lib();
        String ended = lib.substring(
                lib.indexOf("local function ended(state)"),
                lib.indexOf("end", lib.indexOf("local function ended(state)") + 30));
        Set<String> lua = new TreeSet<>();
        Matcher m = Pattern.compile("state == '([A-Z_]+)'").matcher(ended);
        while (m.find()) {
            lua.add(m.group(1));
        }
        assertEquals(
                Arrays.stream(JobState.values())
                        .filter(JobState::ended)
                        .map(Enum::name)
                        .collect(Collectors.toCollection(TreeSet::new)),
                lua);
    }

    @Test
    void everyJobStateAScriptWritesIsOneJavaKnows() throws IOException {
        Set<String> written = new TreeSet<>();
        Pattern state = Pattern.compile("'state', '([A-Z_]+)'");
        try (var scripts = Files.walk(Path.of("src/main/resources/lua"))) {
            for (Path f : scripts.filter(x -> x.toString().endsWith(".lua")).toList()) {
                Matcher m = state.matcher(Files.readString(f));
                while (m.find()) {
                    written.add(m.group(1));
                }
            }
        }
        Set<String> known = new TreeSet<>();
        Arrays.stream(JobState.values()).map(Enum::name).forEach(known::add);
        Arrays.stream(ProcessorState.values()).map(Enum::name).forEach(known::add);
        known.addAll(Set.of("ACTIVE", "DRAINING")); // a pool's and a sweep's states besides
        written.removeAll(known);
        assertEquals(Set.of(), written, "states the scripts write that no Java enum names");
    }
}
