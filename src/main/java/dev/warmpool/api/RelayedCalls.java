package dev.warmpool.api;

import dev.warmpool.auth.DriverTokens;
import dev.warmpool.protocol.Relay;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * What a sweep driver's relayed connection may ask (docs/security.md): it comes from {@link Relay#SOURCE},
 * and only a call with a driver's token to a sweep's or a job's path goes on, to be checked there like any
 * (DriverScope). Anything else, tokenless paths included ({@code /q/health}, {@code /q/metrics} when
 * public, the CloudEvents ping), is refused here, so the way opened for one job reaches its sweep only.
 */
@ApplicationScoped
public class RelayedCalls {
    void install(@Observes Router router) {
        // before LocalUserOnly (-190) and the routes; after LoopbackHost (-200)
        router.route().order(-195).handler(this::check);
    }

    void check(RoutingContext rc) {
        if (relayed(rc.request().connection().remoteAddress())
                && !(driverToken(rc.request().getHeader(HttpHeaders.AUTHORIZATION))
                        && sweepsOrJobs(rc.normalizedPath()))) {
            rc.response()
                    .setStatusCode(403)
                    .putHeader(HttpHeaders.CONTENT_TYPE, ProblemMapper.PROBLEM_JSON)
                    .end("{\"type\":\"" + Problem.TYPE_BASE + "relayed\",\"title\":\"Forbidden\",\"status\":403,"
                            + "\"detail\":\"A sweep driver's way to the API reaches its sweep and that sweep's trials,"
                            + " with its token, nothing else.\"}");
            return;
        }
        rc.next();
    }

    static boolean relayed(SocketAddress remote) {
        return remote != null && !remote.isDomainSocket() && Relay.isSource(remote.hostAddress());
    }

    static boolean driverToken(String authorization) {
        String prefix = "Bearer " + DriverTokens.PREFIX;
        return authorization != null && authorization.regionMatches(true, 0, prefix, 0, prefix.length());
    }

    static boolean sweepsOrJobs(String path) {
        return path != null && (path.startsWith("/sweeps/") || path.startsWith("/jobs/"));
    }
}
