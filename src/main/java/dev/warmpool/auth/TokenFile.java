package dev.warmpool.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The static API tokens: one line per token, {@code <name> <roles> <sha256-hex of the token>},
 * roles comma-separated (viewer, submitter, admin, and any group names a pool's
 * {@code submitters} may list), {@code #} starting a comment. The file holds no token, only its
 * hash, so it can sit in a Kubernetes Secret or a repository without giving anyone access.
 */
public final class TokenFile {
    /** One caller the file knows. */
    public record Entry(String name, Set<String> roles, byte[] hash) {}

    private final List<Entry> entries;
    /** The entries by their hash, the first line of a hash first: a lookup is one SHA-256 and one comparison. */
    private final Map<Digest, Entry> byHash = new HashMap<>();

    private TokenFile(List<Entry> entries) {
        this.entries = List.copyOf(entries);
        for (Entry e : this.entries) {
            byHash.putIfAbsent(new Digest(e.hash()), e);
        }
    }

    /**
     * A SHA-256 as a map key. Its bucket and the map's comparisons depend on the digest alone,
     * which says nothing usable about the token (finding a token whose digest comes near a stored
     * one is as hard as finding the token); the entry found is compared again in constant time.
     */
    private record Digest(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Digest d && MessageDigest.isEqual(bytes, d.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }
    }

    /** Parses the file's text; {@code where} names it in errors, which say the line and what to fix. */
    public static TokenFile parse(String text, String where) {
        List<Entry> out = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            int hash = line.indexOf('#');
            line = (hash >= 0 ? line.substring(0, hash) : line).trim();
            if (line.isEmpty()) {
                continue;
            }
            String[] parts = line.split("\\s+");
            String at = where + " line " + (i + 1) + ": ";
            if (parts.length != 3) {
                throw new IllegalArgumentException(at + "expected '<name> <roles> <sha256-hex of the token>', e.g. "
                        + "'alice submitter 9f86d0...'; found " + parts.length + " words");
            }
            if (!parts[2].matches("[0-9a-fA-F]{64}")) {
                throw new IllegalArgumentException(at + "the third word must be the token's SHA-256 as 64 hex digits "
                        + "(printf %s \"$TOKEN\" | sha256sum), not the token itself");
            }
            if (!names.add(parts[0])) {
                throw new IllegalArgumentException(
                        at + "the name '" + parts[0] + "' is used twice; give each token its own");
            }
            Set<String> roles = new LinkedHashSet<>(List.of(parts[1].split(",")));
            roles.remove("");
            out.add(new Entry(parts[0], Set.copyOf(roles), HexFormat.of().parseHex(parts[2].toLowerCase())));
        }
        return new TokenFile(out);
    }

    public static TokenFile of(List<Entry> entries) {
        return new TokenFile(entries);
    }

    public int size() {
        return entries.size();
    }

    /**
     * The caller whose token this is: its SHA-256, computed once, looked up among the file's
     * hashes (see {@link Digest}) and compared in constant time, so the time taken says nothing
     * about how close a guess came. Nothing is kept of a token that matches none: what this holds
     * is the file's entries, replaced whole when the file is re-read, so a token removed from it
     * stops working with that re-read.
     */
    public Optional<Entry> match(String token) {
        return matchHash(sha256(token));
    }

    /** The caller whose token has this SHA-256 (a dashboard session keeps the hash, never the token), compared as {@link #match} does. */
    public Optional<Entry> matchHash(byte[] hash) {
        Entry e = byHash.get(new Digest(hash));
        return e != null && MessageDigest.isEqual(e.hash(), hash) ? Optional.of(e) : Optional.empty();
    }

    public static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The file's line for a token: what the run command writes for the token it makes. */
    public static String line(String name, String roles, String token) {
        return name + " " + roles + " " + HexFormat.of().formatHex(sha256(token));
    }
}
