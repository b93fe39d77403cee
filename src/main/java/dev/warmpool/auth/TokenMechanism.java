package dev.warmpool.auth;

import dev.warmpool.config.WarmpoolConfig;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.IdentityProviderManager;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.AuthenticationRequest;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.quarkus.vertx.http.runtime.security.ChallengeData;
import io.quarkus.vertx.http.runtime.security.HttpAuthenticationMechanism;
import io.quarkus.vertx.http.runtime.security.HttpCredentialTransport;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Set;

/**
 * Reads {@code Authorization: Bearer <token>}, or else the dashboard's session cookie. A static API token is looked up here; a token
 * shaped as a JWT (three dot-separated parts), when an issuer is configured, is left to the
 * smallrye-jwt mechanism that runs after this one, so both end in one {@link SecurityIdentity}.
 * No header means anonymous: the endpoint then answers 401 if it needs a role. With
 * {@code warmpool.auth.enabled=false}, every caller is one local admin; api.LocalUserOnly has
 * already refused any connection that is not the manager's own user's.
 */
@ApplicationScoped
public class TokenMechanism implements HttpAuthenticationMechanism {
    /** The identity of every caller when authentication is off. */
    static final SecurityIdentity OPEN = QuarkusSecurityIdentity.builder()
            .setPrincipal(new QuarkusPrincipal("local"))
            .addRoles(Set.of(Roles.VIEWER, Roles.SUBMITTER, Roles.ADMIN))
            .build();

    static final String CHALLENGE = "Bearer realm=\"warmpool\"";

    private final boolean enabled;
    private final boolean jwt;
    private final UiSessions sessions;
    private final DriverTokens drivers;

    public TokenMechanism(WarmpoolConfig config, UiSessions sessions, DriverTokens drivers) {
        this.sessions = sessions;
        this.drivers = drivers;
        this.enabled = config.auth().enabled();
        this.jwt = config.auth().jwt().issuer().isPresent();
    }

    @Override
    public Uni<SecurityIdentity> authenticate(RoutingContext context, IdentityProviderManager identities) {
        if (!enabled) {
            return Uni.createFrom().item(OPEN);
        }
        List<String> headers = context.request().headers().getAll("Authorization");
        if (headers.isEmpty()) {
            return fromCookie(context);
        }
        if (headers.size() > 1) {
            return refuse("Send one Authorization header, not " + headers.size() + ".");
        }
        String header = headers.get(0).trim();
        if (header.length() < 7 || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return refuse("Send the token as 'Authorization: Bearer <token>'.");
        }
        String token = header.substring(7).trim();
        if (token.isEmpty()) {
            return refuse("The Authorization header has no token after 'Bearer'.");
        }
        if (DriverTokens.looksLikeOne(token)) {
            return drivers.identity(token); // a server-side sweep's driver: its sweep only
        }
        if (jwt && looksLikeJwt(token)) {
            return Uni.createFrom().nullItem(); // the JWT mechanism's
        }
        return identities.authenticate(new StaticTokenRequest(token));
    }

    /**
     * The dashboard's session (UiSession): a session value in the cookie, looked up in Redis
     * ({@link UiSessions}). One that is no longer valid (logged out, expired, its token removed,
     * or Redis unreachable) is anonymous (the page then shows its login form); a request that
     * changes something with the cookie alone, without the page's header, is refused.
     */
    private Uni<SecurityIdentity> fromCookie(RoutingContext context) {
        Cookie cookie = context.request().getCookie(UiSession.COOKIE);
        if (cookie == null || cookie.getValue().isBlank()) {
            return Uni.createFrom().nullItem();
        }
        HttpMethod m = context.request().method();
        boolean safe = m == HttpMethod.GET || m == HttpMethod.HEAD || m == HttpMethod.OPTIONS;
        if (!safe && context.request().getHeader(UiSession.HEADER) == null) {
            if (context.request().path().startsWith("/ui/")) {
                return Uni.createFrom().nullItem(); // the login and logout forms need no identity
            }
            return refuse(
                    "A request that changes something needs 'Authorization: Bearer <token>' (or, from the dashboard, its "
                            + UiSession.HEADER + " header): the session cookie alone is not enough.");
        }
        return sessions.identity(cookie.getValue().trim()).onFailure().recoverWithNull();
    }

    static boolean looksLikeJwt(String token) {
        return token.chars().filter(c -> c == '.').count() == 2;
    }

    private static Uni<SecurityIdentity> refuse(String why) {
        return Uni.createFrom().failure(new AuthenticationFailedException(why));
    }

    @Override
    public Uni<ChallengeData> getChallenge(RoutingContext context) {
        return Uni.createFrom().item(new ChallengeData(401, "WWW-Authenticate", CHALLENGE));
    }

    /**
     * The 401 for paths outside the API (/q/metrics), answered as the API answers it: as
     * problem+json with the Bearer challenge (the API's own 401s come from ProblemMapper).
     */
    @Override
    public Uni<Boolean> sendChallenge(RoutingContext context) {
        if (context.response().ended()) {
            return Uni.createFrom().item(true);
        }
        String body =
                "{\"type\":\"https://warmpool.dev/problems/unauthenticated\",\"title\":\"Unauthorized\",\"status\":401,"
                        + "\"detail\":\"This needs a token: send 'Authorization: Bearer <token>' (the run command writes one to "
                        + ".warmpool/token).\"}";
        return Uni.createFrom()
                .completionStage(() -> context.response()
                        .setStatusCode(401)
                        .putHeader("WWW-Authenticate", CHALLENGE)
                        .putHeader("Content-Type", "application/problem+json")
                        .end(body)
                        .toCompletionStage())
                .replaceWith(true);
    }

    @Override
    public Set<Class<? extends AuthenticationRequest>> getCredentialTypes() {
        return Set.of(StaticTokenRequest.class);
    }

    @Override
    public Uni<HttpCredentialTransport> getCredentialTransport(RoutingContext context) {
        return Uni.createFrom().item(new HttpCredentialTransport(HttpCredentialTransport.Type.AUTHORIZATION, "bearer"));
    }

    /** Runs before smallrye-jwt's (priority 1000), so that a static token never reaches the JWT parser. */
    @Override
    public int getPriority() {
        return DEFAULT_PRIORITY + 100;
    }
}
