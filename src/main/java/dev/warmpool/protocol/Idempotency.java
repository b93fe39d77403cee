package dev.warmpool.protocol;

/**
 * An Idempotency-Key as the submit scripts take it: the key's SHA-256 (any string makes a short,
 * safe key), the fingerprint of the request it came with, and how long it holds.
 */
public record Idempotency(String keyHash, String fingerprint, long ttlSeconds) {
    /** No key: the submit is not idempotent. */
    public static final Idempotency NONE = new Idempotency("", "", 0);
}
