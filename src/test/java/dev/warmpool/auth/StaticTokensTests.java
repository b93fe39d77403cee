package dev.warmpool.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tokens in force are the file's as last read: a token removed from the file (revoked) or
 * replaced (rotated) is refused from the re-read on, and a wrong token never matches.
 */
@Tag("unit")
class StaticTokensTests {
    @Test
    void aTokenRemovedOrRotatedInTheFileIsRefusedFromItsReRead(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("tokens");
        write(file, TokenFile.line("alice", "submitter", "alice-1") + "\n" + TokenFile.line("bob", "admin", "bob-1"));
        StaticTokens tokens = new StaticTokens(null); // its config is read by init() alone
        tokens.use(file);
        for (int i = 0; i < 3; i++) { // asked again and again (what a cache would answer from)
            assertEquals("alice", tokens.match("alice-1").orElseThrow().name());
            assertEquals("bob", tokens.match("bob-1").orElseThrow().name());
        }
        assertTrue(tokens.match("alice-2").isEmpty(), "a wrong token");
        assertTrue(tokens.match("").isEmpty());

        // alice's token revoked, bob's rotated
        write(file, TokenFile.line("bob", "admin", "bob-2"));
        tokens.reloadIfChanged();
        assertTrue(tokens.match("alice-1").isEmpty(), "revoked: refused at once");
        assertTrue(tokens.match("bob-1").isEmpty(), "rotated away: refused at once");
        assertEquals("bob", tokens.match("bob-2").orElseThrow().name());
        assertTrue(tokens.matchHash(TokenFile.sha256("alice-1")).isEmpty(), "a dashboard session's hash alike");
    }

    @Test
    void aBrokenFileKeepsTheTokensInForce(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("tokens");
        write(file, TokenFile.line("alice", "submitter", "alice-1"));
        StaticTokens tokens = new StaticTokens(null);
        tokens.use(file);
        write(file, "alice submitter not-a-hash");
        tokens.reloadIfChanged();
        assertEquals("alice", tokens.match("alice-1").orElseThrow().name());
    }

    /** Writes the file with a modification time later than any before, as an edit seconds later has. */
    private static void write(Path file, String text) throws Exception {
        FileTime before = Files.exists(file) ? Files.getLastModifiedTime(file) : FileTime.fromMillis(0);
        Files.writeString(file, text + "\n");
        Files.setLastModifiedTime(file, FileTime.fromMillis(before.toMillis() + 2000));
    }
}
