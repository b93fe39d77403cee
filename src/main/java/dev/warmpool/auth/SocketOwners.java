package dev.warmpool.auth;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Who owns the client end of a TCP connection to this machine's loopback: Linux lists every TCP
 * socket of this network namespace in {@code /proc/net/tcp} and {@code /proc/net/tcp6}, with the
 * uid that made it. The client's row is the one whose local address is the connection's remote
 * address and whose remote address is the connection's local address. A client may reach an IPv4
 * server from an IPv6 socket (as {@code ::ffff:127.0.0.1}), so both tables are read and addresses
 * are compared in their IPv6 form.
 */
public final class SocketOwners {
    /** Where Linux lists this network namespace's TCP sockets. */
    public static final List<Path> TABLES = List.of(Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6"));

    /**
     * The states of a socket that a process still holds (ESTABLISHED, FIN_WAIT1, FIN_WAIT2,
     * CLOSE_WAIT, LAST_ACK, CLOSING). A TIME_WAIT row belongs to no one and shows uid 0, so it must
     * never count as root's.
     */
    private static final Set<String> HELD = Set.of("01", "04", "05", "08", "09", "0B");

    private final List<Path> tables;
    private final ByteOrder order;

    public SocketOwners() {
        this(TABLES, ByteOrder.nativeOrder());
    }

    SocketOwners(List<Path> tables, ByteOrder order) {
        this.tables = tables;
        this.order = order;
    }

    /**
     * The uid that owns the socket at {@code client} connected to {@code server}, or empty when no
     * held socket matches (the client closed, or it is not on this machine). Blocking file IO, and
     * as long as the tables: call it off the event loop.
     */
    public OptionalInt owner(InetSocketAddress client, InetSocketAddress server) throws IOException {
        Endpoint local = Endpoint.of(client);
        Endpoint remote = Endpoint.of(server);
        for (Path table : tables) {
            try (BufferedReader in = Files.newBufferedReader(table)) {
                OptionalInt uid = find(in, local, remote, order);
                if (uid.isPresent()) {
                    return uid;
                }
            } catch (NoSuchFileException e) {
                // no IPv6 on this host: its sockets are all in the other table
            }
        }
        return OptionalInt.empty();
    }

    /** The uid column of the first held row from {@code local} to {@code remote}, reading the table line by line. */
    static OptionalInt find(BufferedReader table, Endpoint local, Endpoint remote, ByteOrder order) throws IOException {
        String line = table.readLine(); // the header
        while ((line = table.readLine()) != null) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 8 || !HELD.contains(f[3])) {
                continue;
            }
            Endpoint rowLocal = Endpoint.parse(f[1], order);
            if (local.equals(rowLocal) && remote.equals(Endpoint.parse(f[2], order))) {
                return OptionalInt.of(Integer.parseInt(f[7]));
            }
        }
        return OptionalInt.empty();
    }

    /** An address (always 16 bytes: IPv4 as {@code ::ffff:a.b.c.d}) and a port. */
    record Endpoint(byte[] address, int port) {
        static Endpoint of(InetSocketAddress a) {
            return new Endpoint(v6(a.getAddress()), a.getPort());
        }

        static Endpoint of(InetAddress address, int port) {
            return new Endpoint(v6(address), port);
        }

        /**
         * A table's {@code ADDR:PORT}: the address as 32-bit words in the kernel's byte order
         * (one word for IPv4, four for IPv6), the port as plain hex.
         */
        static Endpoint parse(String field, ByteOrder order) {
            int colon = field.indexOf(':');
            if (colon < 0 || (colon != 8 && colon != 32)) {
                return new Endpoint(new byte[0], -1);
            }
            ByteBuffer raw = ByteBuffer.allocate(colon / 2).order(order);
            for (int i = 0; i < colon; i += 8) {
                raw.putInt((int) Long.parseLong(field.substring(i, i + 8), 16));
            }
            int port = Integer.parseInt(field.substring(colon + 1), 16);
            byte[] bytes = raw.array();
            return new Endpoint(bytes.length == 4 ? mapped(bytes) : bytes, port);
        }

        private static byte[] v6(InetAddress a) {
            return a instanceof Inet4Address ? mapped(a.getAddress()) : a.getAddress();
        }

        private static byte[] mapped(byte[] v4) {
            byte[] b = new byte[16];
            b[10] = (byte) 0xff;
            b[11] = (byte) 0xff;
            System.arraycopy(v4, 0, b, 12, 4);
            return b;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Endpoint e && port == e.port && Arrays.equals(address, e.address);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(address) + port;
        }

        @Override
        public String toString() {
            return Arrays.toString(address) + ":" + port;
        }
    }
}
