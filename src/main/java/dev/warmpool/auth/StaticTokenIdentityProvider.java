package dev.warmpool.auth;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/** The caller a static token belongs to: its name and roles from the tokens file (in memory, no blocking). */
@ApplicationScoped
public class StaticTokenIdentityProvider implements IdentityProvider<StaticTokenRequest> {
    private final StaticTokens tokens;

    public StaticTokenIdentityProvider(StaticTokens tokens) {
        this.tokens = tokens;
    }

    @Override
    public Class<StaticTokenRequest> getRequestType() {
        return StaticTokenRequest.class;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(StaticTokenRequest request, AuthenticationRequestContext context) {
        return tokens.match(request.token())
                .<Uni<SecurityIdentity>>map(e -> Uni.createFrom()
                        .item(QuarkusSecurityIdentity.builder()
                                .setPrincipal(new QuarkusPrincipal(e.name()))
                                .addRoles(e.roles())
                                .build()))
                .orElseGet(() -> Uni.createFrom()
                        .failure(new AuthenticationFailedException(
                                "The token is not one warmpool knows; check it, or ask an admin for one.")));
    }
}
