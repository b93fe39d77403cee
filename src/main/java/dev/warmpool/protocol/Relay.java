package dev.warmpool.protocol;

/**
 * A sweep driver's way to the API (docs/sweeps.md): its agent relays each connection to a Unix
 * socket in the driver job's own dir to the manager's HTTP port, from {@link #SOURCE}. The manager
 * knows relayed connections by that address: with authentication off, where every local
 * connection of its own user is trusted, it refuses them (they are a job's, not its user's).
 */
public final class Relay {
    /** The loopback address an agent's relayed connections come from. */
    public static final String SOURCE = "127.0.0.2";

    /** The socket's name in the driver job's dir; {@code WARMPOOL_URL} names it as {@code http+unix://}. */
    public static final String SOCKET = "api.sock";

    private Relay() {}

    /** Whether a connection from {@code hostAddress} (an IP literal; null for a domain socket) is one an agent relays. */
    public static boolean isSource(String hostAddress) {
        return SOURCE.equals(hostAddress);
    }
}
