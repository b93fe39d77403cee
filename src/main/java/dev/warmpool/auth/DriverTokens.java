package dev.warmpool.auth;

import dev.warmpool.pool.Ids;
import dev.warmpool.protocol.Fields.SweepHash;
import dev.warmpool.protocol.KeySchema;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.RedisAPI;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;

/**
 * A server-side sweep's driver token (docs/sweeps.md): good for its one sweep while it runs, as
 * {@link Roles#DRIVER} acting for the sweep's submitter, and nothing else. The token names its
 * sweep ({@code wpd_<64 hex>_<sweep id>}); only the SHA-256 of its secret is kept, in the sweep's
 * hash, so the token goes when the sweep ends (no longer RUNNING), after {@link #LAST_WORDS} in which
 * its driver tells its study the trials that ended last (their end ended the sweep), or when it expires.
 */
@ApplicationScoped
public class DriverTokens {
    /** How a driver token begins. */
    public static final String PREFIX = "wpd_";
    /** The identity attribute that names the one sweep a driver token reaches. */
    public static final String SWEEP = "warmpool.sweep";

    /** How long after its sweep ended a driver's token still is good: the driver tells its last trials. */
    static final long LAST_WORDS = 60_000;

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int SECRET_HEX = 64;

    private final RedisAPI redis;

    public DriverTokens(RedisAPI redis) {
        this.redis = redis;
    }

    /** A new token for {@code sweepId}, and what to keep of it (the hex SHA-256 of its secret). */
    public static Minted mint(String sweepId) {
        byte[] secret = new byte[32];
        RANDOM.nextBytes(secret);
        String hex = HexFormat.of().formatHex(secret);
        return new Minted(PREFIX + hex + "_" + sweepId, hash(hex));
    }

    /** A token and the hash the sweep keeps of it. */
    public record Minted(String token, String hash) {}

    static boolean looksLikeOne(String token) {
        return token.startsWith(PREFIX) && token.length() > PREFIX.length() + SECRET_HEX + 1;
    }

    /** The driver's identity, or a failure that says the token is not (or no longer) good. */
    Uni<SecurityIdentity> identity(String token) {
        String secret = token.substring(PREFIX.length(), PREFIX.length() + SECRET_HEX);
        String sweepId = token.substring(PREFIX.length() + SECRET_HEX + 1);
        String type = token.charAt(PREFIX.length() + SECRET_HEX) == '_' ? Ids.typeOfSweep(sweepId) : null;
        if (type == null || !secret.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            return refused();
        }
        return redis.hmget(List.of(
                        KeySchema.sweep(type, sweepId),
                        SweepHash.DRIVER_TOKEN,
                        SweepHash.STATE,
                        SweepHash.SUBMITTED_BY,
                        SweepHash.FINISHED_AT))
                .flatMap(r -> {
                    String kept = text(r, 0);
                    if (kept == null
                            || !(("RUNNING".equals(text(r, 1))) || recentlyEnded(text(r, 3)))
                            || !MessageDigest.isEqual(
                                    kept.getBytes(StandardCharsets.US_ASCII),
                                    hash(secret).getBytes(StandardCharsets.US_ASCII))) {
                        return refused();
                    }
                    String submitter = text(r, 2) == null ? "" : text(r, 2);
                    return Uni.createFrom()
                            .item(QuarkusSecurityIdentity.builder()
                                    .setPrincipal(new QuarkusPrincipal(submitter))
                                    .addRole(Roles.DRIVER)
                                    .addAttribute(SWEEP, sweepId)
                                    .build());
                });
    }

    /** Whether the sweep ended (finishedAt, ms) less than {@link #LAST_WORDS} ago. */
    private static boolean recentlyEnded(String finishedAt) {
        try {
            return finishedAt != null && System.currentTimeMillis() - Long.parseLong(finishedAt) < LAST_WORDS;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static Uni<SecurityIdentity> refused() {
        return Uni.createFrom()
                .failure(new AuthenticationFailedException(
                        "This sweep driver's token is not good (any more): its sweep has ended, or it is not one."));
    }

    private static String text(Response r, int i) {
        Response v = r == null || r.size() <= i ? null : r.get(i);
        return v == null ? null : v.toString();
    }

    private static String hash(String secretHex) {
        return HexFormat.of().formatHex(TokenFile.sha256(secretHex));
    }
}
