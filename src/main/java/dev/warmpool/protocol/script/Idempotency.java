package dev.warmpool.protocol.script;

/**
 * An Idempotency-Key as the submit scripts take it: the SHA-256 of the caller's name and the key
 * (any string makes a short, safe key; the caller's name makes it that caller's, see
 * IdempotencyKeys.scopedKeyHash), the fingerprint of the request it came with, and how long it holds.
 */
public record Idempotency(String keyHash, String fingerprint, long ttlSeconds) {
    /** No key: the submit is not idempotent. */
    public static final Idempotency NONE = new Idempotency("", "", 0);
}
