package dev.warmpool.agent;

import dev.warmpool.protocol.Relay;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A sweep driver's way to the API, opened for that job alone: a Unix socket in its own dir (its
 * user's, 0600), each connection relayed byte for byte to the manager's HTTP port on this machine,
 * from {@link Relay#SOURCE}. The job's network stays what its pool says (none by default): it
 * reaches this one port, through its agent, and nothing else of the host's; what it may do there is
 * what its sweep-scoped token allows. Closed (every connection with it) when the job ends.
 */
final class ApiRelay implements AutoCloseable {
    /** Connections at once; more are closed at once (a job cannot spend the agent's threads). */
    static final int MAX_CONNECTIONS = 64;
    /** How long a connection to the manager may take to open. */
    static final int CONNECT_MILLIS = 5_000;

    private final ServerSocketChannel server;
    private final Path socket;
    private final InetSocketAddress manager;
    private final Set<Channel> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger clients = new AtomicInteger();
    private volatile boolean closed;

    private ApiRelay(ServerSocketChannel server, Path socket, InetSocketAddress manager) {
        this.server = server;
        this.socket = socket;
        this.manager = manager;
    }

    /** A relay from {@code socket} (made here, given to the job's user by {@code handOver}) to {@code address} (host:port). */
    static ApiRelay open(Path socket, String address, Consumer<Path> handOver) throws IOException {
        int colon = address.lastIndexOf(':');
        if (colon < 1) {
            throw new IOException("the manager's address is not host:port: " + address);
        }
        InetSocketAddress manager =
                new InetSocketAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            server.bind(UnixDomainSocketAddress.of(socket));
            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
            handOver.accept(socket);
        } catch (IOException | RuntimeException e) {
            server.close();
            Files.deleteIfExists(socket);
            throw e;
        }
        ApiRelay relay = new ApiRelay(server, socket, manager);
        daemon(relay::accept, "api-relay");
        return relay;
    }

    private void accept() {
        while (!closed) {
            SocketChannel in;
            try {
                in = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            if (clients.incrementAndGet() > MAX_CONNECTIONS) {
                clients.decrementAndGet();
                quietly(in);
                continue;
            }
            open.add(in);
            daemon(() -> relay(in), "api-relay-conn");
        }
    }

    private void relay(SocketChannel in) {
        SocketChannel out = null;
        try {
            out = SocketChannel.open();
            open.add(out);
            out.bind(new InetSocketAddress(Relay.SOURCE, 0));
            out.socket().connect(manager, CONNECT_MILLIS);
            SocketChannel to = out;
            Thread back = daemon(() -> pump(to, in), "api-relay-back");
            pump(in, out);
            back.join();
        } catch (IOException e) {
            // the manager is not there (restarting): the caller sees its connection closed and retries
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            clients.decrementAndGet();
            quietly(in);
            open.remove(in);
            if (out != null) {
                quietly(out);
                open.remove(out);
            }
        }
    }

    /** Copies until {@code from} ends, then ends {@code to}'s output; an error ends both. */
    private static void pump(SocketChannel from, SocketChannel to) {
        ByteBuffer b = ByteBuffer.allocate(16 * 1024);
        try {
            while (from.read(b) >= 0) {
                b.flip();
                while (b.hasRemaining()) {
                    to.write(b);
                }
                b.clear();
            }
            to.shutdownOutput();
        } catch (IOException e) {
            quietly(from);
            quietly(to);
        }
    }

    @Override
    public void close() {
        closed = true;
        quietly(server);
        open.forEach(ApiRelay::quietly);
        open.clear();
        try {
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            // the job's dir goes with it
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void quietly(Channel c) {
        try {
            c.close();
        } catch (IOException e) {
            // closing
        }
    }
}
