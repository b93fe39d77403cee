package dev.warmpool.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * The run command's own redis-server, kept alive: started (or found again) at the manager's start,
 * and started again from its data dir (same password, same key and certificate, its AOF) whenever
 * it exits while the manager runs. Until it is back, clients reconnect through the pinned TLS
 * handshake, so whoever takes the port meanwhile gets a failed handshake, never a password; a port
 * taken that way keeps the restart waiting, retried with backoff (0.5 s doubling to 10 s).
 */
public final class OwnRedis {
    private static final Logger LOG = Logger.getLogger(OwnRedis.class);
    private static final long MAX_BACKOFF_MILLIS = 10_000;

    private final int port;
    private final Path dir;
    private final String password;
    private final List<String> alsoBind;
    private final RedisTls tls;
    private final ScheduledExecutorService restarts = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "own-redis-restart");
        t.setDaemon(true);
        return t;
    });
    private volatile RedisServer current;

    private OwnRedis(int port, Path dir, String password, List<String> alsoBind, RedisTls tls) {
        this.port = port;
        this.dir = dir;
        this.password = password;
        this.alsoBind = List.copyOf(alsoBind);
        this.tls = tls;
    }

    /**
     * Starts or finds the server (see {@link RedisServer#persistent(int, Path, String, List, RedisTls)})
     * and watches it from now on.
     */
    public static OwnRedis start(int port, Path dir, String password, List<String> alsoBind, RedisTls tls) {
        OwnRedis own = new OwnRedis(port, dir, password, alsoBind, tls);
        own.current = RedisServer.persistent(port, dir, password, alsoBind, tls);
        own.watch(own.current);
        return own;
    }

    public RedisServer server() {
        return current;
    }

    /** Stops watching: the server is left running, as when the manager ends. */
    public void forget() {
        restarts.shutdownNow();
    }

    private void watch(RedisServer server) {
        Optional<ProcessHandle> handle =
                server.process().map(Process::toHandle).or(() -> pid().flatMap(ProcessHandle::of));
        if (handle.isEmpty()) {
            LOG.warnf(
                    "cannot watch warmpool's own Redis on port %d: no pid in %s",
                    port, dir.resolve(RedisServer.PID_FILE));
            return;
        }
        // a child's exit is seen at once; a server found again (not a child) is polled by the JDK
        handle.get().onExit().thenRun(() -> {
            if (!restarts.isShutdown()) {
                LOG.warnf(
                        "warmpool's own Redis (pid %d, port %d) exited; starting it again from %s",
                        handle.get().pid(), port, dir.toAbsolutePath());
                restarts.execute(() -> restart(500));
            }
        });
    }

    private void restart(long backoffMillis) {
        try {
            RedisServer again = RedisServer.persistent(port, dir, password, alsoBind, tls);
            current = again;
            LOG.infof(
                    "warmpool's own Redis is back on port %d%s",
                    port, again.process().map(p -> " (pid " + p.pid() + ")").orElse(""));
            watch(again);
        } catch (RuntimeException e) {
            LOG.errorf(
                    "warmpool's own Redis could not be started again on port %d (%s); retried in %d ms",
                    port, e.getMessage(), backoffMillis);
            if (!restarts.isShutdown()) {
                restarts.schedule(
                        () -> restart(Math.min(backoffMillis * 2, MAX_BACKOFF_MILLIS)),
                        backoffMillis,
                        TimeUnit.MILLISECONDS);
            }
        }
    }

    private Optional<Long> pid() {
        try {
            return Optional.of(Long.parseLong(
                    Files.readString(dir.resolve(RedisServer.PID_FILE)).trim()));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }
}
