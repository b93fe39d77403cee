package dev.warmpool.api;

import dev.warmpool.config.WarmpoolConfig;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.regex.Pattern;

/**
 * With authentication off ({@code warmpool.auth.enabled=false}) the manager listens on loopback
 * only, but a web page can still reach it through the browser by DNS rebinding: a name of the
 * page's own that now resolves to 127.0.0.1. Such a request carries that name as its Host, so
 * only the loopback names are answered ({@code 127.0.0.1}, {@code localhost}, {@code [::1]}, with
 * or without a port); any other is refused 421 before anything runs. With authentication on,
 * the token guards every call and any Host is fine (proxies, ingresses, cluster names).
 */
@ApplicationScoped
public class LoopbackHost {
    static final Pattern LOOPBACK = Pattern.compile("(?i)(127\\.0\\.0\\.1|localhost|\\[::1])(:\\d{1,5})?");

    private final boolean enabled;

    public LoopbackHost(WarmpoolConfig config) {
        this.enabled = !config.auth().enabled();
    }

    void install(@Observes Router router) {
        if (enabled) {
            router.route().order(-200).handler(this::check);
        }
    }

    void check(RoutingContext rc) {
        String host = rc.request().getHeader(HttpHeaders.HOST);
        if (host == null && rc.request().authority() != null) {
            host = rc.request().authority().toString(); // HTTP/2's :authority
        }
        if (host != null && LOOPBACK.matcher(host.trim()).matches()) {
            rc.next();
            return;
        }
        String shown = host == null ? "no Host header" : "Host '" + shown(host) + "'";
        rc.response()
                .setStatusCode(421)
                .putHeader(HttpHeaders.CONTENT_TYPE, ProblemMapper.PROBLEM_JSON)
                .end(
                        "{\"type\":\"" + Problem.TYPE_BASE
                                + "host-not-loopback\",\"title\":\"Misdirected request\",\"status\":421,"
                                + "\"detail\":\"warmpool runs without authentication (warmpool.auth.enabled=false), so it answers only "
                                + "requests addressed to 127.0.0.1, localhost or [::1]; this one has " + shown
                                + ". Open "
                                + "http://localhost:<port>/ instead, or turn authentication on to reach it by another name.\"}");
    }

    /** The Host as the problem may quote it: short, and only characters a host name may have. */
    static String shown(String host) {
        String clean = host.replaceAll("[^A-Za-z0-9.:\\[\\]_-]", "?");
        return clean.length() > 64 ? clean.substring(0, 64) + "..." : clean;
    }
}
