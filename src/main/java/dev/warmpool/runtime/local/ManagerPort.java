package dev.warmpool.runtime.local;

import io.quarkus.runtime.LaunchMode;
import java.util.OptionalInt;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The port this manager's HTTP server listens on, as its local agents reach it on the loopback (a
 * sweep driver's relay, docs/sweeps.md): the one it was given, or, for port 0 (the tests'), the one
 * it got, which Quarkus puts in the same property once the server is up.
 */
final class ManagerPort {
    private ManagerPort() {}

    static OptionalInt now() {
        String name = LaunchMode.current() == LaunchMode.TEST ? "quarkus.http.test-port" : "quarkus.http.port";
        String s = System.getProperty(name);
        if (s == null) {
            s = ConfigProvider.getConfig().getOptionalValue(name, String.class).orElse(null);
        }
        try {
            int port = s == null ? -1 : Integer.parseInt(s.trim());
            return port > 0 ? OptionalInt.of(port) : OptionalInt.empty();
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }
}
