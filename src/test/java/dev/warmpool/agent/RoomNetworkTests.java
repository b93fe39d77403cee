package dev.warmpool.agent;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.agent.io.Tail;
import dev.warmpool.agent.room.ResidentRoom;
import dev.warmpool.agent.room.Sandbox;
import dev.warmpool.agent.worker.Worker;
import dev.warmpool.agent.worker.WorkerSlot;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A local room's network, as the pool's {@code network} says (CI installs bubblewrap and
 * slirp4netns): by default a job reaches no port of the host's loopback (the manager's, Redis's),
 * takes none, and reads no host socket in /proc/net; {@code outbound} reaches the host's other
 * addresses but not its loopback; {@code host} is the host's network. Each in the processor's
 * resident room and in a job's own bwrap (a host without unshare on PATH).
 */
class RoomNetworkTests {
    @TempDir
    Path tmp;

    final List<Sandbox> sandboxes = new ArrayList<>();
    final List<ServerSocket> servers = new ArrayList<>();

    @AfterEach
    void close() throws IOException {
        sandboxes.forEach(Sandbox::close);
        for (ServerSocket s : servers) {
            s.close();
        }
    }

    Sandbox processor(boolean resident, String network) throws Exception {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
        Map<String, String> env = new HashMap<>(Map.of(
                "WARMPOOL_SANDBOX",
                "bwrap",
                // no unshare on PATH: no resident room, a bwrap per job
                "PATH",
                resident ? System.getenv("PATH") : "/nonexistent"));
        if (ResidentRoomTests.ROOT) {
            env.put("WARMPOOL_RUN_AS", "65534:65534");
        }
        Sandbox s = Sandbox.fromEnv(env, Files.createTempDirectory(tmp, "p"));
        s.follow(network, List.of(), null);
        sandboxes.add(s);
        return s;
    }

    /** A server that accepts (and drops) connections on {@code address}. */
    ServerSocket server(InetAddress address) throws IOException {
        ServerSocket s = new ServerSocket(0, 50, address);
        servers.add(s);
        Thread t = new Thread(() -> {
            while (!s.isClosed()) {
                try {
                    s.accept().close();
                } catch (IOException e) {
                    return;
                }
            }
        });
        t.setDaemon(true);
        t.start();
        return s;
    }

    JobRun.Outcome run(Sandbox s, String script) throws Exception {
        AtomicReference<JobRun.Outcome> out = new AtomicReference<>();
        String id = "n" + System.nanoTime();
        JobRun r = new JobRun(
                new JobRun.Launch(
                        id,
                        "t",
                        List.of("/bin/bash", "-c", script),
                        Map.of("PATH", "/usr/bin:/bin"),
                        null,
                        0,
                        s.newJobDir(id)),
                s,
                JobRun.Hooks.endOnly(out::set));
        r.run();
        r.cleanUp();
        assertNotNull(out.get());
        return out.get();
    }

    /** A bash line that prints {@code name}: ok, or refused, for a TCP connect to {@code host:port}. */
    static String connect(String name, String host, int port) {
        return "if timeout 5 bash -c 'echo > /dev/tcp/" + host + "/" + port + "' 2>/dev/null; then echo " + name
                + ":ok; else echo " + name + ":refused; fi; ";
    }

    static String hexPort(int port) {
        return String.format(":%04X ", port);
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void byDefaultAJobReachesNoHostPortAndSeesNoHostSocket(boolean resident) throws Exception {
        ServerSocket manager = server(InetAddress.getLoopbackAddress());
        Sandbox s = processor(resident, null);
        JobRun.Outcome o = run(
                s,
                connect("manager", "127.0.0.1", manager.getLocalPort())
                        + "cat /proc/net/tcp /proc/net/tcp6 2>/dev/null; ip -4 -o addr 2>/dev/null | wc -l");
        assertTrue(o.logTail().contains("manager:refused"), o.logTail());
        assertFalse(
                o.logTail().contains(hexPort(manager.getLocalPort())), "no host socket in /proc/net: " + o.logTail());
        assertEquals("none", s.network());
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void byDefaultAJobTakesNoHostPort(boolean resident) throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort(); // the manager's, while it is down
        }
        Sandbox s = processor(resident, null);
        // the job listens on the port in the background; the host tries it while it does
        AtomicReference<JobRun.Outcome> o = new AtomicReference<>();
        Thread job = new Thread(() -> {
            try {
                o.set(run(
                        s,
                        "/usr/bin/python3 -c 'import socket,time,sys; s=socket.socket();"
                                + " s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind((\"127.0.0.1\", "
                                + port + ")); s.listen(); print(\"listening\", flush=True); time.sleep(3)'"));
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        job.start();
        boolean taken = false;
        long until = System.nanoTime() + 4_000_000_000L;
        while (job.isAlive() && System.nanoTime() < until && !taken) {
            try (Socket c = new Socket()) {
                c.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
                taken = true;
            } catch (IOException e) {
                // not there (yet)
            }
        }
        job.join(10_000);
        assertTrue(
                o.get().logTail().contains("listening"),
                "the job listened, in its own network: " + o.get().logTail());
        assertFalse(taken, "the host's port stayed free while the job listened");
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void outboundReachesTheHostsOtherAddressesButNotItsLoopback(boolean resident) throws Exception {
        Assumptions.assumeTrue(
                ResidentRoom.onPath("slirp4netns", System.getenv("PATH")).isPresent()
                        || "true".equals(System.getenv("CI")),
                "slirp4netns is installed (CI has it)");
        InetAddress outside = nonLoopback();
        Assumptions.assumeTrue(outside != null, "the host has an address besides its loopback");
        ServerSocket there = server(outside);
        ServerSocket redis = server(InetAddress.getLoopbackAddress());
        Sandbox s = processor(resident, "outbound");
        JobRun.Outcome o = run(
                s,
                connect("outside", outside.getHostAddress(), there.getLocalPort())
                        + connect("loopback", "127.0.0.1", redis.getLocalPort())
                        + connect("gateway", "10.0.2.2", redis.getLocalPort())
                        + "cat /proc/net/tcp");
        String log = o.logTail();
        assertTrue(log.contains("outside:ok"), log);
        assertTrue(log.contains("loopback:refused"), log);
        assertTrue(log.contains("gateway:refused"), log);
        assertFalse(log.contains(hexPort(redis.getLocalPort()) + "00000000:0000 0A"), "no host socket listed: " + log);
        if (resident) {
            // the room's slirp4netns ends with it
            long slirps = slirps();
            assertTrue(slirps > 0, "a slirp4netns serves the room");
            s.close();
            await().atMost(Duration.ofSeconds(10)).until(() -> slirps() < slirps);
        }
    }

    @Test
    void hostKeepsTheHostsNetwork() throws Exception {
        ServerSocket manager = server(InetAddress.getLoopbackAddress());
        Sandbox s = processor(true, "host");
        JobRun.Outcome o = run(s, connect("manager", "127.0.0.1", manager.getLocalPort()));
        assertTrue(o.logTail().contains("manager:ok"), o.logTail());
    }

    @Test
    void aRoomWhoseNetworkChangedIsReplaced() throws Exception {
        ServerSocket manager = server(InetAddress.getLoopbackAddress());
        Sandbox s = processor(true, "host");
        assertTrue(run(s, connect("m", "127.0.0.1", manager.getLocalPort()))
                .logTail()
                .contains("m:ok"));
        s.follow("none", List.of(), null);
        assertTrue(run(s, connect("m", "127.0.0.1", manager.getLocalPort()))
                .logTail()
                .contains("m:refused"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "outbound"})
    void aPersistentWorkersRoomHasThePoolsNetworkToo(String network) throws Exception {
        Assumptions.assumeTrue(
                "none".equals(network)
                        || ResidentRoom.onPath("slirp4netns", System.getenv("PATH"))
                                .isPresent()
                        || "true".equals(System.getenv("CI")),
                "slirp4netns is installed (CI has it)");
        InetAddress outside = nonLoopback();
        Assumptions.assumeTrue(outside != null, "the host has an address besides its loopback");
        ServerSocket there = server(outside);
        ServerSocket manager = server(InetAddress.getLoopbackAddress());
        Sandbox s = processor(true, network);
        WorkerSlot slot = new WorkerSlot(Map.of("PATH", "/usr/bin:/bin"), "p1", "net", s, 1 << 20);
        String script = "read job; " + connect("outside", outside.getHostAddress(), there.getLocalPort())
                + connect("manager", "127.0.0.1", manager.getLocalPort()) + "echo '{\"status\": \"SUCCEEDED\"}'";
        Worker w = slot.get(List.of("/bin/bash", "-c", script), Map.of(), null);
        try {
            Tail log = new Tail(4096);
            Worker.Reply reply = w.call("{\"id\": \"j1\"}", report -> {}, log);
            assertNotNull(reply, log.text());
            assertTrue(log.text().contains("manager:refused"), log.text());
            assertTrue(log.text().contains("outbound".equals(network) ? "outside:ok" : "outside:refused"), log.text());
        } finally {
            slot.kill();
        }
    }

    static long slirps() {
        return ProcessHandle.allProcesses()
                .filter(h -> h.info().command().orElse("").endsWith("slirp4netns"))
                .filter(h -> h.parent()
                        .map(p -> p.pid() == ProcessHandle.current().pid())
                        .orElse(false))
                .count();
    }

    /** An IPv4 address of this host besides its loopback (traffic to it stays on the host), or null. */
    static InetAddress nonLoopback() throws IOException {
        for (NetworkInterface i : NetworkInterface.networkInterfaces().toList()) {
            if (!i.isUp() || i.isLoopback()) {
                continue;
            }
            for (InetAddress a : i.inetAddresses().toList()) {
                if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
                    return a;
                }
            }
        }
        return null;
    }
}
