package dev.warmpool.metrics;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Before {@code /q/metrics} answers, the pools' counts are read from Redis (without blocking the
 * event loop: the scrape goes on when the read is done, or has timed out, on its own context).
 */
@ApplicationScoped
public class ScrapeRead {
    void route(@Observes Router router, PoolMetrics metrics) {
        router.route(HttpMethod.GET, "/q/metrics").order(-100).handler(rc -> {
            Context context = Vertx.currentContext();
            metrics.refresh()
                    .subscribe()
                    .with(ok -> context.runOnContext(v -> rc.next()), e -> context.runOnContext(v -> rc.next()));
        });
    }
}
