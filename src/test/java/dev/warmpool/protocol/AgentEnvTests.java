package dev.warmpool.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The manager-to-agent launch contract is written once, in {@link AgentEnv}: no runtime and no
 * agent class spells one of its names as a string of its own (a rename would then compile and
 * break one runtime at run time).
 */
@Tag("unit")
class AgentEnvTests {
    @Test
    void theNamesAreWarmpoolsOwnAndEachOnce() {
        assertEquals(AgentEnv.ALL.size(), new HashSet<>(AgentEnv.ALL).size(), "no name twice");
        assertTrue(AgentEnv.ALL.stream().allMatch(n -> n.startsWith("WARMPOOL_")), AgentEnv.ALL.toString());
        // a job may never set one: the manager refuses it, the agent drops it
        assertTrue(AgentEnv.ALL.stream().allMatch(EnvNames::forbidden));
    }

    @Test
    void noRuntimeNorTheAgentSpellsANameOfItsOwn() throws IOException {
        List<String> spelled;
        try (Stream<Path> files = Files.walk(Path.of("src/main/java/dev/warmpool"))) {
            spelled = files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> !f.getFileName().toString().equals("AgentEnv.java"))
                    .flatMap(f -> {
                        try {
                            String text = Files.readString(f);
                            return AgentEnv.ALL.stream()
                                    .filter(n -> text.contains("\"" + n + "\""))
                                    .map(n -> f + ": \"" + n + "\"");
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    })
                    .toList();
        }
        assertEquals(List.of(), spelled, "use AgentEnv's constants");
    }
}
