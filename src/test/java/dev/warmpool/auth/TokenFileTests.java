package dev.warmpool.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("unit")
class TokenFileTests {
    @Test
    void findsTheCallerOfATokenByItsHashWithItsRoles() {
        TokenFile f = TokenFile.parse(
                "# team tokens\n" + TokenFile.line("alice", "submitter,team-a", "s3cret") + "  # alice\n\n"
                        + TokenFile.line("ops", "admin", "other") + "\n",
                "tokens");
        assertEquals(2, f.size());
        assertEquals("alice", f.match("s3cret").orElseThrow().name());
        assertEquals(
                Set.of("submitter", "team-a"), f.match("s3cret").orElseThrow().roles());
        assertEquals("ops", f.match("other").orElseThrow().name());
        assertTrue(f.match("s3cret ").isEmpty());
        assertTrue(f.match("").isEmpty());
    }

    @Test
    void saysWhichLineIsWrongAndHowToFixIt() {
        IllegalArgumentException words =
                assertThrows(IllegalArgumentException.class, () -> TokenFile.parse("alice submitter\n", "tokens"));
        assertTrue(words.getMessage().contains("tokens line 1"), words.getMessage());
        IllegalArgumentException plain = assertThrows(
                IllegalArgumentException.class, () -> TokenFile.parse("# x\nalice submitter my-token\n", "tokens"));
        assertTrue(
                plain.getMessage().contains("line 2") && plain.getMessage().contains("sha256sum"), plain.getMessage());
        IllegalArgumentException twice = assertThrows(
                IllegalArgumentException.class,
                () -> TokenFile.parse(
                        TokenFile.line("a", "viewer", "x") + "\n" + TokenFile.line("a", "admin", "y"), "tokens"));
        assertTrue(twice.getMessage().contains("twice"), twice.getMessage());
    }

    @Test
    void theFirstStartMakesOneAdminTokenKeepsOnlyItsHashAndReusesIt(@TempDir Path dir) throws Exception {
        Path hashes = StaticTokens.firstAdminToken(dir);
        Path plain = dir.resolve("token");
        String token = Files.readString(plain).trim();
        assertTrue(token.length() >= 40, token);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(plain)));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(hashes)));
        String stored = Files.readString(hashes);
        assertFalse(stored.contains(token), "the hash file holds the token itself");
        TokenFile f = TokenFile.parse(stored, hashes.toString());
        assertEquals(Set.of(Roles.ADMIN), f.match(token).orElseThrow().roles());
        StaticTokens.firstAdminToken(dir);
        assertEquals(token, Files.readString(plain).trim(), "a later start keeps the token");
        assertEquals(stored, Files.readString(hashes));
        assertNotEquals(
                token,
                Files.readString(StaticTokens.firstAdminToken(Files.createTempDirectory(dir, "b"))
                                .resolveSibling("token"))
                        .trim(),
                "each installation gets its own token");
    }
}
