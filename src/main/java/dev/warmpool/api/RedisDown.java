package dev.warmpool.api;

import io.netty.channel.ConnectTimeoutException;
import java.net.ConnectException;
import java.nio.channels.ClosedChannelException;

/** Tells a Redis outage (answered 503 with Retry-After) from a bug (answered 500). */
final class RedisDown {
    private RedisDown() {}

    static boolean is(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ConnectException
                    || t instanceof ClosedChannelException
                    || t instanceof ConnectTimeoutException
                    || (t.getMessage() != null
                            && (t.getMessage().contains("Connection refused")
                                    || t.getMessage().contains("Connection is closed")
                                    || t.getMessage().startsWith("LOADING")
                                    // the Vert.x client's word for a connection Redis closed under a request
                                    || t.getMessage().equals("CONNECTION_CLOSED")))) {
                return true;
            }
        }
        return false;
    }
}
