package dev.warmpool;

import dev.warmpool.runtime.StopCommand;
import dev.warmpool.store.OwnRedis;
import dev.warmpool.store.PrivateFiles;
import dev.warmpool.store.RedisServer;
import dev.warmpool.store.RedisTls;
import io.quarkus.runtime.ApplicationLifecycleManager;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The manager's entry point. With no Redis configured ({@code quarkus.redis.hosts} /
 * {@code QUARKUS_REDIS_HOSTS}), it starts a redis-server of its own before Quarkus reads its
 * config: on port 6380 (never the 6379 of a Redis someone else may run) with AOF in
 * {@code .warmpool/redis}, in its own session, so that it outlives the manager as the warm
 * processors do, and is found again on the next start (only that one: a server on the port that
 * this install did not start is refused). It speaks TLS only, with a certificate that the manager
 * and its agents pin, and the manager starts it again when it exits (see {@link OwnRedis}). The
 * state dir is made private to this user first.
 */
@QuarkusMain
public class WarmpoolMain {
    private static final Logger LOG = Logger.getLogger(WarmpoolMain.class);

    public static void main(String... args) {
        if (args.length > 0 && "stop".equals(args[0])) {
            // what to stop comes from the state dir; the settings' Redis dir serves an older manager's only
            System.exit(StopCommand.run(
                    stateDir(),
                    configuredRedis().isPresent() ? Optional.empty() : Optional.of(embeddedDir()),
                    System.out));
        }
        // an AppCDS build runs main only to record the classes it loads: no Redis for that
        boolean recordingClasses = Boolean.getBoolean("quarkus.appcds.generate");
        OwnRedis own = null;
        if (!recordingClasses && configuredRedis().isEmpty()) {
            int port = embeddedPort();
            Path dir = embeddedDir();
            PrivateFiles.secureDir(stateDir());
            PrivateFiles.secureDir(dir);
            String password = password(dir, port);
            // docker processors reach this Redis at the default bridge's gateway, so it listens there too
            // (on a local manager that also runs containers: warmpool.runtime.docker.host set)
            boolean docker = "docker".equals(setting("warmpool.runtime.type", "WARMPOOL_RUNTIME_TYPE", "local"))
                    || !setting("warmpool.runtime.docker.host", "WARMPOOL_RUNTIME_DOCKER_HOST", "")
                            .isEmpty();
            List<String> alsoBind = docker ? dockerBridge() : List.of();
            RedisTls tls = RedisTls.ensure(dir);
            // kept for the manager's life: started again from its dir whenever it exits
            own = OwnRedis.start(port, dir, password, alsoBind, tls);
            RedisServer redis = own.server();
            StopCommand.noteRedis(
                    stateDir(), Optional.of(dir)); // `stop` finds it by the note, whatever its environment
            System.setProperty(
                    "quarkus.redis.hosts",
                    password == null ? redis.url() : "rediss://:" + password + "@127.0.0.1:" + port);
            pinClients(tls.certificate());
            LOG.infof(
                    "No Redis configured (quarkus.redis.hosts): using warmpool's own redis-server at %s (TLS, certificate"
                            + " %s), data in %s%s%s",
                    redis.url(),
                    tls.certificate(),
                    dir.toAbsolutePath(),
                    redis.process().isPresent() ? " (started now)" : " (already running)",
                    password == null
                            ? ""
                            : ", password in " + dir.resolve("password").toAbsolutePath());
        }
        if (!recordingClasses) {
            if (own == null) { // quarkus.redis.hosts was given (it names the own Redis from here on)
                StopCommand.noteRedis(stateDir(), Optional.empty()); // a Redis that `stop` leaves alone
            }
            StopCommand.register(stateDir()); // `stop` finds this manager by it, on every runtime
        }
        if ("false".equalsIgnoreCase(setting("warmpool.auth.enabled", "WARMPOOL_AUTH_ENABLED", "true"))
                && System.getProperty("quarkus.http.host") == null
                && System.getenv("QUARKUS_HTTP_HOST") == null) {
            // no authentication: reachable from this machine only (Startup refuses any other address)
            System.setProperty("quarkus.http.host", "127.0.0.1");
        }
        OwnRedis started = own != null && own.server().process().isPresent() ? own : null;
        Quarkus.run(null, (code, failure) -> failed(started, code, failure), args);
    }

    /**
     * Quarkus has ended: a manager that failed to start stops the Redis it started (nothing was
     * given to it yet, and no agent serves it), rather than leave it running for nobody. A Redis it
     * found running (its agents' since before) is left to them.
     */
    private static void failed(OwnRedis started, int code, Throwable failure) {
        if (failure != null) {
            // a failure before logging is up (a key that maps to no setting, a value of the wrong
            // kind) reaches no log: say it here, or the manager exits without a word
            System.err.println("warmpool did not start: " + reason(failure));
        }
        if (failure != null && started != null) {
            started.forget();
            started.server().stop();
            LOG.infof(
                    "the manager did not start: stopped the Redis it started (port %d)",
                    started.server().port());
        }
        ApplicationLifecycleManager.getDefaultExitCodeHandler().accept(code, failure);
    }

    /** The innermost message of a failure: what went wrong rather than where it was wrapped. */
    static String reason(Throwable failure) {
        String reason = failure.toString();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getMessage() != null) {
                reason = t.getMessage();
            }
        }
        return reason;
    }

    /**
     * The own Redis's password: made at its first start ({@code <dir>/password}, 0600), so that
     * other users of this machine cannot reach it, and its agents connect as their pool's ACL
     * user.
     */
    private static String password(Path dir, int port) {
        Path file = dir.resolve("password");
        try {
            if (Files.isRegularFile(file)) {
                return Files.readString(file).trim();
            }
            byte[] random = new byte[24];
            new SecureRandom().nextBytes(random);
            String password = HexFormat.of().formatHex(random);
            RedisServer.writePrivate(file, password + "\n");
            return password;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep the Redis password in " + file, e);
        }
    }

    /**
     * The manager's Redis client and its agents trust {@code certificate} alone (a named TLS
     * configuration of Quarkus's registry; it holds that certificate as its only trust anchor, and
     * only its key's holder can present it).
     */
    private static void pinClients(Path certificate) {
        String cert = certificate.toAbsolutePath().toString();
        System.setProperty("quarkus.redis.tls-configuration-name", TLS_NAME);
        System.setProperty("quarkus.tls." + TLS_NAME + ".trust-store.pem.certs", cert);
        // Vert.x wants one named; the certificate names 127.0.0.1, where the manager reaches its Redis
        System.setProperty("quarkus.tls." + TLS_NAME + ".hostname-verification-algorithm", "HTTPS");
        System.setProperty("warmpool.redis.pinned-certificate", cert);
    }

    /** The TLS configuration of the manager's client to its own Redis. */
    static final String TLS_NAME = "warmpool-redis";

    /** The Redis the manager was given (quarkus.redis.hosts, QUARKUS_REDIS_HOSTS), if any. */
    private static Optional<String> configuredRedis() {
        return Optional.ofNullable(System.getProperty("quarkus.redis.hosts", System.getenv("QUARKUS_REDIS_HOSTS")));
    }

    private static Path stateDir() {
        return Path.of(setting("warmpool.runtime.local.state-dir", "WARMPOOL_RUNTIME_LOCAL_STATE_DIR", ".warmpool"));
    }

    private static int embeddedPort() {
        return Integer.parseInt(setting("warmpool.redis.embedded-port", "WARMPOOL_REDIS_EMBEDDED_PORT", "6380"));
    }

    private static Path embeddedDir() {
        return Path.of(setting("warmpool.redis.embedded-dir", "WARMPOOL_REDIS_EMBEDDED_DIR", ".warmpool/redis"));
    }

    /** docker0's IPv4 address (the default bridge's gateway), if this machine has one. */
    private static List<String> dockerBridge() {
        try {
            NetworkInterface nic = NetworkInterface.getByName("docker0");
            return nic == null
                    ? List.of()
                    : nic.inetAddresses()
                            .filter(a -> a instanceof Inet4Address)
                            .map(InetAddress::getHostAddress)
                            .limit(1)
                            .toList();
        } catch (SocketException e) {
            return List.of();
        }
    }

    private static String setting(String property, String env, String fallback) {
        String value = System.getProperty(property, System.getenv(env));
        return value == null || value.isBlank() ? fallback : value;
    }
}
