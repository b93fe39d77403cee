package dev.warmpool.auth;

import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.protocol.KeySchema;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.RedisAPI;
import jakarta.enterprise.context.ApplicationScoped;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The dashboard's sessions: the cookie carries 32 random bytes, Redis keeps (under their SHA-256,
 * see {@link KeySchema#uiSession}) the SHA-256 of the token that opened it, for
 * {@code warmpool.auth.ui-session-ttl}. So the token never sits in a browser's cookie jar, a
 * session ends at logout on every replica, and a token removed from the tokens file ends its
 * sessions at once (the caller is looked up in the file on every request). One key per change:
 * a plain SET with an expiry, or a DEL.
 */
@ApplicationScoped
public class UiSessions {
    /** What a session value looks like: 32 bytes, base64url without padding. */
    private static final Pattern VALUE = Pattern.compile("[A-Za-z0-9_-]{43}");

    private static final SecureRandom RANDOM = new SecureRandom();

    private final RedisAPI redis;
    private final StaticTokens tokens;
    private final long ttlSeconds;

    public UiSessions(RedisAPI redis, StaticTokens tokens, WarmpoolConfig config) {
        this.redis = redis;
        this.tokens = tokens;
        this.ttlSeconds = config.auth().uiSessionTtl().toSeconds();
    }

    /** A new session for a (valid) static token: the value for the cookie. */
    public Uni<String> open(String token) {
        byte[] random = new byte[32];
        RANDOM.nextBytes(random);
        String value = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        String tokenHash = HexFormat.of().formatHex(TokenFile.sha256(token));
        return redis.set(List.of(key(value), tokenHash, "EX", Long.toString(ttlSeconds)))
                .replaceWith(value);
    }

    /** The caller of a session cookie's value; null when it is no session (any more), or its token is gone. */
    public Uni<SecurityIdentity> identity(String value) {
        if (!VALUE.matcher(value).matches()) {
            return Uni.createFrom().nullItem();
        }
        return redis.get(key(value))
                .map(reply -> reply == null
                        ? null
                        : tokens.matchHash(HexFormat.of().parseHex(reply.toString()))
                                .<SecurityIdentity>map(e -> QuarkusSecurityIdentity.builder()
                                        .setPrincipal(new QuarkusPrincipal(e.name()))
                                        .addRoles(e.roles())
                                        .build())
                                .orElse(null));
    }

    /** Ends the session (logout); nothing when there is none. */
    public Uni<Void> close(String value) {
        if (value == null || !VALUE.matcher(value).matches()) {
            return Uni.createFrom().voidItem();
        }
        return redis.del(List.of(key(value))).replaceWithVoid();
    }

    private static String key(String value) {
        return KeySchema.uiSession(HexFormat.of().formatHex(TokenFile.sha256(value)));
    }
}
