package dev.warmpool.api;

import dev.warmpool.auth.SocketOwners;
import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.protocol.Relay;
import io.netty.util.AttributeKey;
import io.vertx.core.Future;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.net.impl.ConnectionBase;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;
import org.jboss.logging.Logger;

/**
 * With authentication off ({@code warmpool.auth.enabled=false}) a caller is trusted for being the
 * manager's own user, never for reaching the loopback: jobs reach it too, as users of their own
 * (agent/Sandbox), and a job that could call as admin could run a pool's {@code resetCommand}
 * outside its sandbox. So a connection is answered only when its client socket belongs to the
 * manager's uid or to root, as {@code /proc/net/tcp} says ({@link SocketOwners}); any other gets
 * 403 {@code not-local-user}.
 *
 * <p>The owner is looked up once per connection, on a worker thread (reading the tables is
 * blocking file IO, as long as the host has sockets), and kept on the connection's Netty channel,
 * so a keep-alive client's later requests and an HTTP/2 connection's streams cost nothing. A host
 * without {@code /proc/net/tcp} cannot tell its users apart, so every call is refused there.
 */
@ApplicationScoped
public class LocalUserOnly {
    private static final Logger LOG = Logger.getLogger(LocalUserOnly.class);

    /** The connection's owner, looked up by its first request. */
    static final AttributeKey<Future<OptionalInt>> OWNER = AttributeKey.valueOf("warmpool.owner");

    private final boolean enabled;
    private final SocketOwners owners;
    private final int me;
    private final String name;

    @Inject
    public LocalUserOnly(WarmpoolConfig config) {
        this(!config.auth().enabled(), new SocketOwners(), ownUid(), System.getProperty("user.name", "?"));
    }

    LocalUserOnly(boolean enabled, SocketOwners owners, int me, String name) {
        this.enabled = enabled;
        this.owners = owners;
        this.me = me;
        this.name = name;
    }

    void install(@Observes Router router) {
        if (enabled) {
            // after LoopbackHost (-200): a misdirected request is refused for its Host, before any lookup
            router.route().order(-190).handler(this::check);
        }
    }

    void check(RoutingContext rc) {
        owner(rc).onComplete(r -> {
            if (rc.response().ended()) {
                return; // the client went away meanwhile
            }
            OptionalInt uid = r.succeeded() ? r.result() : OptionalInt.empty();
            if (r.failed()) {
                LOG.warnf("could not read who owns a connection: %s", r.cause().toString());
            }
            if (uid.isPresent() && trusted(uid.getAsInt())) {
                rc.next();
            } else {
                refuse(rc, uid);
            }
        });
    }

    /** A connection an agent relays for a sweep's driver job ({@link Relay#SOURCE}). */
    static boolean relayed(InetSocketAddress client) {
        return client.getAddress() != null && Relay.isSource(client.getAddress().getHostAddress());
    }

    /** The manager's own user, and root (who could read the manager's memory anyway). */
    boolean trusted(int uid) {
        return me >= 0 && (uid == me || uid == 0);
    }

    private Future<OptionalInt> owner(RoutingContext rc) {
        HttpConnection connection = rc.request().connection();
        if (!(connection instanceof ConnectionBase base)) {
            return lookup(rc, connection); // another transport: no channel to keep it on
        }
        Future<OptionalInt> known = base.channel().attr(OWNER).get();
        if (known == null) {
            known = lookup(rc, connection);
            base.channel().attr(OWNER).set(known); // on the connection's event loop, so set once
        }
        return known;
    }

    private Future<OptionalInt> lookup(RoutingContext rc, HttpConnection connection) {
        InetSocketAddress client = inet(connection.remoteAddress());
        InetSocketAddress server = inet(connection.localAddress());
        if (client == null || server == null || relayed(client)) {
            // a sweep driver's, relayed by its agent (which is this user's or root's): a job's, never trusted
            return Future.succeededFuture(OptionalInt.empty());
        }
        return rc.vertx().executeBlocking(() -> owners.owner(client, server), false);
    }

    /** The socket's IP address and port, parsed from its literal (no name lookup); null for a domain socket. */
    private static InetSocketAddress inet(SocketAddress a) {
        if (a == null || a.isDomainSocket() || a.hostAddress() == null) {
            return null;
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(a.hostAddress()), a.port());
        } catch (UnknownHostException e) {
            return null; // not a literal: never resolved here
        }
    }

    private void refuse(RoutingContext rc, OptionalInt uid) {
        String whose = uid.isPresent()
                ? "this connection belongs to uid " + uid.getAsInt()
                : "the owner of this connection was not found in /proc/net/tcp";
        String detail = "warmpool.auth.enabled=false trusts only the local user " + name + " (uid " + me + "); " + whose
                + ": call as " + name + ", or turn authentication on and use a token.";
        rc.response()
                .setStatusCode(403)
                .putHeader(HttpHeaders.CONTENT_TYPE, ProblemMapper.PROBLEM_JSON)
                .end("{\"type\":\"" + Problem.TYPE_BASE + "not-local-user\",\"title\":\"Forbidden\",\"status\":403,"
                        + "\"detail\":\"" + json(detail) + "\"}");
    }

    private static String json(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"").replaceAll("[\\x00-\\x1f]", "?");
    }

    /** This process's uid, or -1 where {@code /proc} does not say (then no caller is trusted). */
    static int ownUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (Exception e) {
            return -1;
        }
    }
}
