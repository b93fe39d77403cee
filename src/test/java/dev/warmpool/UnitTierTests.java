package dev.warmpool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The fast tier, {@code ./mvnw test -Dgroups=unit} (README): the test classes tagged {@code unit}
 * boot no Quarkus, start no redis-server, process or container, so the tier runs in seconds. A
 * class that starts needing one of those must lose its tag.
 */
@Tag("unit")
class UnitTierTests {
    /** What a class of the fast tier must not use: Quarkus, a Redis, another process, an engine. */
    static final Pattern SLOW = Pattern.compile(
            "@QuarkusTest|@QuarkusIntegrationTest|RedisServer|ScriptsOnRedis|TestRedis|ManagerProcess|ProcessBuilder"
                    + "|new Jedis|DockerClient|LocalRuntime\\.|ResidentRoom|Runtime\\.getRuntime\\(\\)\\.exec");

    static List<Path> tagged() throws IOException {
        try (Stream<Path> files = Files.walk(Path.of("src/test/java"))) {
            return files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> {
                        try {
                            return Files.readString(f).contains("@Tag(\"unit\")");
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    })
                    .sorted()
                    .toList();
        }
    }

    @Test
    void theFastTierUsesNothingSlow() throws IOException {
        List<Path> tagged = tagged();
        assertTrue(tagged.size() >= 20, "the tier holds the pure tests: " + tagged.size());
        List<String> slow = tagged.stream()
                .filter(f -> !f.getFileName().toString().equals("UnitTierTests.java")) // names them, uses none
                .filter(f -> {
                    try {
                        return SLOW.matcher(Files.readString(f)).find();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                })
                .map(Path::toString)
                .toList();
        assertEquals(List.of(), slow, "classes tagged unit that boot Quarkus or start a Redis or a process");
    }

    @Test
    void theCheckKnowsASlowClassWhenItSeesOne() {
        assertTrue(SLOW.matcher("@QuarkusTest\nclass X {}").find());
        assertTrue(SLOW.matcher("RedisServer r = RedisServer.ephemeral();").find());
    }
}
