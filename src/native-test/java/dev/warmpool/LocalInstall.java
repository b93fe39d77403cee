package dev.warmpool;

import static org.awaitility.Awaitility.await;

import dev.warmpool.runtime.local.LocalAgents;
import dev.warmpool.store.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * The packaged manager as the README's run command starts it (profile prod: its own Redis, a
 * state dir, the first admin token, the demo pool), in a folder of its own on free ports.
 */
final class LocalInstall implements AutoCloseable {
    final Path home;
    final int redisPort = RedisServer.freePort();
    final int httpPort = RedisServer.freePort();
    Process process;

    LocalInstall() throws IOException {
        home = Files.createTempDirectory("wp-home");
    }

    /** Starts the manager with {@code options} (system properties) and {@code env} added. */
    Process launch(List<String> options, Map<String, String> env) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dquarkus.http.port=" + httpPort,
                "-Dwarmpool.redis.embedded-port=" + redisPort));
        cmd.addAll(options);
        cmd.addAll(List.of(
                "-jar",
                Path.of("target/quarkus-app/quarkus-run.jar").toAbsolutePath().toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .directory(home.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        home.resolve("manager.log").toFile()));
        pb.environment().putAll(env);
        process = pb.start();
        return process;
    }

    /** Starts it and waits until it is ready; calls go with the admin token it made. */
    ManagerProcess start(List<String> options, Map<String, String> env) throws Exception {
        Process p = launch(options, env);
        Path token = home.resolve(".warmpool/token");
        await().atMost(Duration.ofSeconds(120)).until(() -> Files.exists(token) || !p.isAlive());
        return ManagerProcess.attach(p, httpPort, Files.readString(token).trim());
    }

    /** As its agents' command lines name it: the run command's own Redis speaks TLS only. */
    String redisUrl() {
        return "rediss://127.0.0.1:" + redisPort;
    }

    String log() throws IOException {
        return Files.readString(home.resolve("manager.log"));
    }

    /** The run command's Redis, by its pid file. */
    Optional<ProcessHandle> redis() throws IOException {
        Path pid = home.resolve(".warmpool/redis/" + RedisServer.PID_FILE);
        return Files.exists(pid)
                ? ProcessHandle.of(Long.parseLong(Files.readString(pid).trim()))
                : Optional.empty();
    }

    /** Kills the manager, the agents it left and its Redis. */
    @Override
    public void close() throws Exception {
        if (process != null) {
            process.destroyForcibly().waitFor();
        }
        LocalAgents.killAll(redisUrl());
        Optional<ProcessHandle> redis = redis();
        redis.ifPresent(ProcessHandle::destroyForcibly);
        if (redis.isPresent()) {
            try {
                redis.get().onExit().get(10, TimeUnit.SECONDS);
            } catch (TimeoutException | ExecutionException e) {
                // removed as far as it can be below
            }
        }
        keepLogs();
        remove(home);
    }

    /** The manager's and agents' logs, kept under target/installs/ for a look after a failure; the home goes. */
    private void keepLogs() {
        try {
            Path kept = Files.createDirectories(
                    Path.of("target", "installs", home.getFileName().toString()));
            Path log = home.resolve("manager.log");
            if (Files.exists(log)) {
                Files.copy(log, kept.resolve("manager.log"), StandardCopyOption.REPLACE_EXISTING);
            }
            Path logs = home.resolve(".warmpool/logs");
            if (Files.isDirectory(logs)) {
                try (Stream<Path> agents = Files.list(logs)) {
                    for (Path a : agents.toList()) {
                        Files.copy(a, kept.resolve(a.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // a log not kept fails no test
        }
    }

    /** Removes {@code dir} and all in it, as far as it can (a file written meanwhile may stay). */
    static void remove(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException e) {
            // gone already, or a file in it went meanwhile
        }
    }
}
