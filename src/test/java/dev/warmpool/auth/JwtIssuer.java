package dev.warmpool.auth;

import com.sun.net.httpserver.HttpServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.jwk.RsaJwkGenerator;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.NumericDate;
import org.jose4j.lang.JoseException;

/**
 * An OIDC issuer of the test's own: an RSA key it makes, its JWKS served over HTTP on a free
 * port, and tokens signed with it (the private key is kept in a file, so the test class and
 * this resource need not share a class loader).
 */
public class JwtIssuer implements QuarkusTestResourceLifecycleManager {
    static final String ISSUER = "https://issuer.warmpool.test";
    static final String AUDIENCE = "warmpool";
    static final Path KEY = Path.of("target", "jwt-issuer", "key.json");
    private HttpServer server;

    @Override
    public Map<String, String> start() {
        try {
            RsaJsonWebKey key = RsaJwkGenerator.generateJwk(2048);
            key.setKeyId("test-key");
            Files.createDirectories(KEY.getParent());
            Files.writeString(KEY, key.toJson(JsonWebKey.OutputControlLevel.INCLUDE_PRIVATE));
            byte[] jwks = new JsonWebKeySet(key)
                    .toJson(JsonWebKey.OutputControlLevel.PUBLIC_ONLY)
                    .getBytes(StandardCharsets.UTF_8);
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/jwks", ex -> {
                ex.getResponseHeaders().add("Content-Type", "application/json");
                ex.sendResponseHeaders(200, jwks.length);
                ex.getResponseBody().write(jwks);
                ex.close();
            });
            server.start();
            return Map.of(
                    "warmpool.auth.jwt.issuer",
                    ISSUER,
                    "warmpool.auth.jwt.audience",
                    AUDIENCE,
                    "warmpool.auth.jwt.jwks-url",
                    "http://127.0.0.1:" + server.getAddress().getPort() + "/jwks",
                    "warmpool.auth.jwt.roles-claim",
                    "groups");
        } catch (IOException | JoseException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    /** A token from this issuer, or from a key of its own ({@code otherKey}), expiring after {@code validSeconds}. */
    static String token(
            String subject, List<String> groups, String issuer, String audience, long validSeconds, boolean otherKey)
            throws Exception {
        RsaJsonWebKey key = otherKey
                ? RsaJwkGenerator.generateJwk(2048)
                : (RsaJsonWebKey) JsonWebKey.Factory.newJwk(Files.readString(KEY));
        key.setKeyId("test-key");
        JwtClaims claims = new JwtClaims();
        claims.setIssuer(issuer);
        claims.setAudience(audience);
        claims.setSubject(subject);
        claims.setStringListClaim("groups", groups);
        claims.setIssuedAt(NumericDate.fromSeconds(System.currentTimeMillis() / 1000 - 3600));
        claims.setExpirationTime(NumericDate.fromSeconds(System.currentTimeMillis() / 1000 + validSeconds));
        JsonWebSignature jws = new JsonWebSignature();
        jws.setPayload(claims.toJson());
        jws.setKey(key.getPrivateKey());
        jws.setKeyIdHeaderValue(key.getKeyId());
        jws.setAlgorithmHeaderValue(AlgorithmIdentifiers.RSA_USING_SHA256);
        return jws.getCompactSerialization();
    }
}
