package dev.warmpool.service;

import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.pool.Fingerprint;
import dev.warmpool.protocol.script.Idempotency;
import dev.warmpool.store.PoolStore;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The Idempotency-Key header of a submit (a job, a batch, a sweep): checked, scoped to its
 * caller, fingerprinted with the request it came with; and the 422 for a key reused with another
 * request. The submit scripts do the rest (they remember the key for
 * {@code warmpool.jobs.idempotency-retention}).
 */
@ApplicationScoped
public class IdempotencyKeys {
    private final PoolStore store;
    private final WarmpoolConfig config;

    public IdempotencyKeys(PoolStore store, WarmpoolConfig config) {
        this.store = store;
        this.config = config;
    }

    /** A 422 for an Idempotency-Key that came with another request before; {@code what} is "job" or "sweep". */
    Refusal reused(String key, String what, Object first) {
        return new Refusal(
                        Refusal.Kind.UNPROCESSABLE,
                        "idempotency-key-reused",
                        "Unprocessable content",
                        "The Idempotency-Key '"
                                + UserInput.shown(key) + "' was used for a different request in the last "
                                + config.jobs().idempotencyRetention().toHours() + " h; use a new key for a new " + what
                                + ".")
                .with(what, first);
    }

    /**
     * An Idempotency-Key header, checked, with the fingerprint of the request it came with, scoped
     * to the caller (see {@link #scopedKeyHash}).
     */
    Idempotency check(String key, Object request, Caller caller) {
        if (key == null) {
            return Idempotency.NONE;
        }
        if (key.isEmpty() || key.length() > 255 || !key.chars().allMatch(c -> c >= 0x21 && c <= 0x7e)) {
            throw Refusal.invalid(
                    "Idempotency-Key",
                    "The Idempotency-Key header must be 1 to 255 visible ASCII " + "characters, e.g. a UUID.");
        }
        return new Idempotency(
                scopedKeyHash(caller, key),
                Fingerprint.sha256(store.write(request)),
                config.jobs().idempotencyRetention().toSeconds());
    }

    /**
     * The key as the submit scripts see it: the SHA-256 of the caller's name and the key, so the
     * same key from two callers is two requests (Bob sending Alice's key gets a job of his own, not
     * hers; an event id sent first by another identity does not block the real event). Scoped here
     * rather than in the scripts so that they, and what they store, stay as they are: they only
     * ever saw an opaque hash. The key is visible ASCII (no newline), so the name ends at the last
     * newline and no two (name, key) pairs hash the same text.
     */
    static String scopedKeyHash(Caller caller, String key) {
        return Fingerprint.sha256(caller.name() + "\n" + key);
    }
}
