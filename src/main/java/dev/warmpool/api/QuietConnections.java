package dev.warmpool.api;

import dev.warmpool.config.WarmpoolConfig;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.timeout.IdleStateHandler;
import io.vertx.core.net.impl.ConnectionBase;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeUnit;

/**
 * Two idle timeouts for one server: every connection is closed after
 * {@code warmpool.connections.idle-timeout} without a byte either way (Vert.x's own timeout, so a
 * client that connects and sends nothing is gone soon), and a response that is meant to be quiet
 * (an event stream, a followed log, a {@code ?wait=}) lifts its connection's to
 * {@code stream-idle-timeout} until it ends. Only an endpoint whose caller is known (it needs a
 * role) asks for this, so no client without a token can hold a connection quiet for long.
 *
 * <p>Vert.x 4.5 (Quarkus 3.33) has one idle timeout per server and no header-read deadline, so
 * this swaps the connection's Netty idle handler (Vert.x names it {@code "idle"}); where that
 * handler is not found (another transport), the connection keeps the server's timeout.
 */
@ApplicationScoped
public class QuietConnections {
    /** The name Vert.x gives the idle handler in a connection's pipeline (HttpServerWorker). */
    static final String IDLE = "idle";

    private final Duration idle;
    private final Duration quiet;

    public QuietConnections(WarmpoolConfig config) {
        this.idle = config.connections().idleTimeout();
        this.quiet = config.connections().streamIdleTimeout();
    }

    /** Lets this request's connection be quiet for the stream idle timeout, until its response ends. */
    public void allowQuiet(RoutingContext rc) {
        Channel channel = rc.request().connection() instanceof ConnectionBase c ? c.channel() : null;
        if (channel == null || !swap(channel, quiet)) {
            return;
        }
        rc.addEndHandler(done -> swap(channel, idle));
    }

    private static boolean swap(Channel channel, Duration timeout) {
        ChannelPipeline pipeline = channel.pipeline();
        try {
            if (pipeline.get(IDLE) == null) {
                return false;
            }
            pipeline.replace(IDLE, IDLE, new IdleStateHandler(0, 0, timeout.toMillis(), TimeUnit.MILLISECONDS));
            return true;
        } catch (NoSuchElementException e) {
            return false; // the connection closed meanwhile
        }
    }
}
