package dev.warmpool.api;

import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Refuses bodies over 1 MiB by their Content-Length with a problem+json 413, before a byte is
 * read ({@code quarkus.http.limits.max-body-size} still cuts off a chunked body that grows past it).
 */
@ApplicationScoped
public class BodyLimit {
    static final long MAX_BYTES = 1024 * 1024;

    void install(@Observes Router router) {
        router.route().order(-100).handler(this::limit);
    }

    void limit(RoutingContext rc) {
        String length = rc.request().getHeader(HttpHeaders.CONTENT_LENGTH);
        if (length != null && tooLarge(length)) {
            rc.response()
                    .setStatusCode(413)
                    .putHeader(HttpHeaders.CONTENT_TYPE, ProblemMapper.PROBLEM_JSON)
                    .putHeader(HttpHeaders.CONNECTION, "close")
                    .end("{\"type\":\"" + Problem.TYPE_BASE + "body-too-large\",\"title\":\"Content too large\","
                            + "\"status\":413,\"detail\":\"The body is larger than 1 MiB; send a smaller one.\"}");
            return;
        }
        rc.next();
    }

    private static boolean tooLarge(String length) {
        try {
            return Long.parseLong(length.trim()) > MAX_BYTES;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
