package dev.warmpool.auth;

import dev.warmpool.config.WarmpoolConfig;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.vertx.http.runtime.security.HttpSecurityPolicy;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * /q/metrics: open when {@code warmpool.auth.public-metrics=true} (a Prometheus in the same trust
 * zone scrapes without a token), else for any role. Named in application.properties' HTTP permissions.
 */
@ApplicationScoped
public class MetricsPolicy implements HttpSecurityPolicy {
    private final boolean open;

    public MetricsPolicy(WarmpoolConfig config) {
        this.open = config.auth().publicMetrics() || !config.auth().enabled();
    }

    @Override
    public Uni<CheckResult> checkPermission(
            RoutingContext request, Uni<SecurityIdentity> identity, AuthorizationRequestContext context) {
        if (open) {
            return Uni.createFrom().item(CheckResult.PERMIT);
        }
        return identity.map(id -> id != null
                        && !id.isAnonymous()
                        && (id.hasRole(Roles.VIEWER) || id.hasRole(Roles.SUBMITTER) || id.hasRole(Roles.ADMIN))
                ? CheckResult.PERMIT
                : CheckResult.DENY);
    }

    @Override
    public String name() {
        return "warmpool-metrics";
    }
}
