package dev.warmpool.agent.room;

import dev.warmpool.agent.io.AgentLog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The network of a local room, as the pool's {@code network} says: {@code none}, a network
 * namespace of its own with only a loopback (the host's ports, the manager's and Redis's among
 * them, cannot be reached or taken, and /proc/net shows the room's sockets alone); {@code
 * outbound}, the same namespace with a slirp4netns user-mode stack attached to the room's init
 * (the outside is reached through the agent's sockets, the host's loopback is not: {@code
 * --disable-host-loopback}); {@code host}, the host's network as before. One instance per room:
 * its slirp4netns ends with the room (or with the agent, which holds its exit pipe).
 */
final class RoomNetwork implements AutoCloseable {
    static final String NONE = "none";
    static final String OUTBOUND = "outbound";
    static final String HOST = "host";

    /** slirp4netns's gateway DNS forwarder, what an outbound room's resolv.conf names. */
    static final String SLIRP_DNS = "10.0.2.3";

    private static final long READY_MILLIS = 5000;

    private final String network;
    private final Path resolvConf;
    private volatile Process slirp;

    /**
     * A room's network {@code network} (null: {@code none}); {@code resolvConf}: where an outbound
     * room's resolv.conf is written (the host's names a resolver the room may not reach).
     */
    RoomNetwork(String network, Path resolvConf) {
        this.network = of(network);
        this.resolvConf = resolvConf;
    }

    /** The pool's choice as a room takes it: anything but {@code outbound} or {@code host} is {@code none}. */
    static String of(String network) {
        return OUTBOUND.equals(network) || HOST.equals(network) ? network : NONE;
    }

    String network() {
        return network;
    }

    /** bwrap's arguments for {@code network}: a namespace of its own unless {@code host}. */
    static List<String> bwrapArgs(String network) {
        return HOST.equals(of(network)) ? List.of() : List.of("--unshare-net");
    }

    /** This room's bwrap arguments: the namespace and, for outbound, a resolv.conf naming slirp4netns's DNS. */
    List<String> bwrapArgs() {
        List<String> out = new ArrayList<>(bwrapArgs(network));
        if (OUTBOUND.equals(network) && resolvConf != null) {
            try {
                Files.writeString(resolvConf, "nameserver " + SLIRP_DNS + "\n");
                if (Files.isRegularFile(Path.of("/etc/resolv.conf"), LinkOption.NOFOLLOW_LINKS)) {
                    out.addAll(List.of("--ro-bind", resolvConf.toString(), "/etc/resolv.conf"));
                }
            } catch (IOException e) {
                AgentLog.log("could not write the room's resolv.conf: %s", e.getMessage());
            }
        }
        return out;
    }

    /**
     * Gives the room whose first process (in its namespaces) is {@code roomPid} its network: for
     * outbound, starts slirp4netns and waits until the room has its default route, so the first
     * job finds it up; it is stopped when that process ends. Nothing for none and host. Only a
     * root agent can: a non-root agent's room has its network in the outer of bwrap's two user
     * namespaces (the inner maps the user back after setting up /dev), which slirp4netns cannot
     * join from the room's processes, so the manager refuses such a pool.
     */
    RoomNetwork attach(long roomPid) throws IOException {
        if (!OUTBOUND.equals(network)) {
            return this;
        }
        Optional<String> bin = ResidentRoom.onPath("slirp4netns", System.getenv("PATH"));
        if (bin.isEmpty()) {
            throw new IOException("the pool's network is outbound, and slirp4netns is not installed");
        }
        List<String> cmd = new ArrayList<>(List.of(
                bin.get(),
                "--configure",
                "--disable-host-loopback",
                "--mtu=65520",
                "--exit-fd=0")); // its stdin is a pipe from this agent: it ends when the agent does
        cmd.addAll(List.of(Long.toString(roomPid), "tap0"));
        ProcessBuilder pb =
                new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        slirp = p;
        ProcessHandle.of(roomPid).ifPresentOrElse(h -> h.onExit().thenRun(this::close), this::close);
        Path route = Path.of("/proc", Long.toString(roomPid), "net", "route");
        long deadline = System.nanoTime() + READY_MILLIS * 1_000_000;
        while (!hasDefaultRoute(route)) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                close();
                throw new IOException("slirp4netns did not give the room its outbound network within " + READY_MILLIS
                        + " ms" + (p.isAlive() ? "" : " (it exited with " + p.exitValue() + ")"));
            }
            try {
                Thread.sleep(5); // a wait for another process's namespace, bounded above; nothing to be woken by
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close();
                throw new IOException("interrupted");
            }
        }
        AgentLog.log("outbound network for the room (pid %d): slirp4netns pid %d", roomPid, p.pid());
        return this;
    }

    /** True once the namespace's routing table {@code route} has a default route via tap0. */
    static boolean hasDefaultRoute(Path route) {
        try {
            return Files.readAllLines(route).stream()
                    .map(l -> l.split("\\s+"))
                    .anyMatch(f -> f.length > 1 && f[0].equals("tap0") && f[1].equals("00000000"));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Stops the room's slirp4netns, if any. */
    @Override
    public void close() {
        Process p = slirp;
        slirp = null;
        if (p != null) {
            p.destroyForcibly();
        }
    }

    /** The slirp4netns process (a test sees it end with its room), or null. */
    Process slirp() {
        return slirp;
    }
}
