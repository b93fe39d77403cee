package dev.warmpool.runtime.local;

import dev.warmpool.store.PrivateFiles;
import dev.warmpool.store.RedisServer;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code java -jar quarkus-run.jar stop}: stops one install, the one whose state dir this is,
 * and nothing of another user's or another install's on the same machine: its managers (each
 * leaves its pid in {@code <state dir>/managers/}), the agents that serve its Redis (found by
 * their command line, which names that Redis), then the Redis the run command started for it.
 */
public final class StopCommand {
    static final String MANAGERS = "managers";
    private static final Duration MANAGER_GRACE = Duration.ofSeconds(20);
    private static final Duration AGENT_GRACE = Duration.ofSeconds(10);

    private StopCommand() {}

    /** Notes this manager in the state dir, for {@code stop}; the note goes when the manager ends. */
    public static void register(Path stateDir) {
        try {
            Path dir = PrivateFiles.secureDir(stateDir.resolve(MANAGERS));
            Path me = dir.resolve(Long.toString(ProcessHandle.current().pid()));
            PrivateFiles.write(me, "");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> me.toFile().delete(), "forget-manager"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot note this manager in " + stateDir, e);
        }
    }

    /**
     * Stops the install; {@code redisUrl}: the Redis its agents serve; {@code embeddedRedis}: the
     * data dir of the Redis the run command started, when it did. Returns the exit code.
     */
    public static int run(Path stateDir, String redisUrl, Optional<Path> embeddedRedis, PrintStream out) {
        int managers = stopAll(managers(stateDir), MANAGER_GRACE);
        int agents = stopAll(LocalRuntime.agents(redisUrl).toList(), AGENT_GRACE);
        String redis = embeddedRedis.map(StopCommand::stopRedis).orElse("not ours (quarkus.redis.hosts): left running");
        out.printf(
                "stopped %d manager(s) and %d agent(s) of %s; Redis: %s%n",
                managers, agents, stateDir.toAbsolutePath(), redis);
        return 0;
    }

    /** The live managers noted in the state dir (a note whose process is gone, or is no JVM, is dropped). */
    static List<ProcessHandle> managers(Path stateDir) {
        Path dir = stateDir.resolve(MANAGERS);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> notes = Files.list(dir)) {
            return notes.flatMap(note -> {
                        Optional<ProcessHandle> h = parse(note.getFileName().toString())
                                .flatMap(ProcessHandle::of)
                                .filter(p -> p.info()
                                        .command()
                                        .map(c -> c.endsWith("java"))
                                        .orElse(false));
                        if (h.isEmpty()) {
                            note.toFile().delete();
                        }
                        return h.stream();
                    })
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Optional<Long> parse(String pid) {
        try {
            return Optional.of(Long.parseLong(pid));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** SIGTERM to each, then SIGKILL to any still there after {@code grace}; how many there were. */
    static int stopAll(List<ProcessHandle> all, Duration grace) {
        all.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + grace.toNanos();
        for (ProcessHandle h : all) {
            try {
                h.onExit().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (Exception e) {
                h.destroyForcibly();
            }
        }
        return all.size();
    }

    private static String stopRedis(Path dir) {
        Path pidFile = dir.resolve(RedisServer.PID_FILE);
        Optional<ProcessHandle> redis;
        try {
            redis = ProcessHandle.of(Long.parseLong(Files.readString(pidFile).trim()))
                    .filter(h -> h.info()
                            .command()
                            .map(c -> c.contains("redis"))
                            .orElse(false)); // Debian links redis-server to redis-check-rdb
        } catch (IOException | NumberFormatException e) {
            return "not running";
        }
        if (redis.isEmpty()) {
            return "not running";
        }
        stopAll(List.of(redis.get()), Duration.ofSeconds(30)); // SIGTERM: it writes its AOF and exits
        return "stopped (pid " + redis.get().pid() + ", data in " + dir.toAbsolutePath() + ")";
    }
}
