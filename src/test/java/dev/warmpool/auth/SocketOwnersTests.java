package dev.warmpool.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.warmpool.auth.SocketOwners.Endpoint;
import dev.warmpool.testing.Ci;
import java.io.BufferedReader;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Reading who owns a loopback connection's client end from Linux's TCP tables. */
class SocketOwnersTests {
    static final String HEADER =
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n";

    /** Rows as an x86 (little-endian) kernel prints them: client 127.0.0.1:46994 to server 127.0.0.1:56417. */
    static final String TCP = HEADER
            + "   5: 0100007F:DC61 00000000:0000 0A 00000000:00000001 00:00000000 00000000  1000        0 54273 2 0 100 0 0 10 0\n"
            + "  12: 0100007F:B792 0100007F:DC61 06 00000000:00000000 03:00001770 00000000     0        0 0 3 0\n"
            + "  13: 0100007F:DC61 0100007F:B792 01 00000000:00000000 00:00000000 00000000  1000        0 0 1 0 20 0 0 10 -1\n"
            + "  14: 0100007F:B792 0100007F:DC61 01 00000000:00000000 00:00000000 00000000 65534        0 54274 2 0 20 0 0 10 -1\n";

    /** The same client from an IPv6 socket (::ffff:127.0.0.1), and one on ::1. */
    static final String TCP6 = HEADER
            + "   3: 00000000000000000000000001000000:B9B4 00000000000000000000000001000000:9E21 01 00000000:00000000 "
            + "00:00000000 00000000  1001        0 52224 2 0 20 0 0 10 -1\n"
            + "   5: 0000000000000000FFFF00000100007F:B792 0000000000000000FFFF00000100007F:DC61 01 00000000:00000000 "
            + "00:00000000 00000000 65534        0 54274 2 0 20 0 0 10 -1\n";

    static OptionalInt find(String table, String client, int clientPort, String server, int serverPort)
            throws Exception {
        return SocketOwners.find(
                new BufferedReader(new StringReader(table)),
                Endpoint.of(InetAddress.getByName(client), clientPort),
                Endpoint.of(InetAddress.getByName(server), serverPort),
                ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void findsTheClientsRowNotTheServersNorATimeWaitOne() throws Exception {
        // row 12 is a closed connection's TIME_WAIT on the same ports: uid 0 there means no one
        assertEquals(OptionalInt.of(65534), find(TCP, "127.0.0.1", 0xB792, "127.0.0.1", 0xDC61));
        assertEquals(OptionalInt.of(1000), find(TCP, "127.0.0.1", 0xDC61, "127.0.0.1", 0xB792));
        assertEquals(OptionalInt.empty(), find(TCP, "127.0.0.1", 0xB793, "127.0.0.1", 0xDC61));
        assertEquals(OptionalInt.empty(), find(TCP, "127.0.0.2", 0xB792, "127.0.0.1", 0xDC61));
    }

    @Test
    void findsAnIpv6ClientAndAnIpv4OneOnAnIpv6Socket() throws Exception {
        assertEquals(OptionalInt.of(1001), find(TCP6, "::1", 0xB9B4, "::1", 0x9E21));
        assertEquals(OptionalInt.of(65534), find(TCP6, "127.0.0.1", 0xB792, "127.0.0.1", 0xDC61));
        assertEquals(OptionalInt.of(65534), find(TCP6, "::ffff:127.0.0.1", 0xB792, "127.0.0.1", 0xDC61));
        assertEquals(OptionalInt.empty(), find(TCP6, "::1", 0x9E21, "::1", 0xB9B4 + 1));
    }

    @Test
    void readsABigEndianKernelsWords() throws Exception {
        String be = HEADER + "   0: 7F000001:B792 7F000001:DC61 01 0:0 0:0 0 42 0 0\n";
        assertEquals(
                OptionalInt.of(42),
                SocketOwners.find(
                        new BufferedReader(new StringReader(be)),
                        Endpoint.of(InetAddress.getByName("127.0.0.1"), 0xB792),
                        Endpoint.of(InetAddress.getByName("127.0.0.1"), 0xDC61),
                        ByteOrder.BIG_ENDIAN));
    }

    @Test
    void findsThisProcessAsTheOwnerOfItsOwnConnection() throws Exception {
        Ci.require(Files.isReadable(Path.of("/proc/net/tcp")), "Linux only", "CI runs on Linux");
        int me = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
                Socket client = new Socket(InetAddress.getByName("127.0.0.1"), server.getLocalPort());
                Socket accepted = server.accept()) {
            InetSocketAddress seenClient = (InetSocketAddress) accepted.getRemoteSocketAddress();
            InetSocketAddress seenServer = (InetSocketAddress) accepted.getLocalSocketAddress();
            assertEquals(OptionalInt.of(me), new SocketOwners().owner(seenClient, seenServer));
        }
    }
}
