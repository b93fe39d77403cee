package dev.warmpool;

import static org.awaitility.Awaitility.await;

import dev.warmpool.runtime.local.LocalAgents;
import dev.warmpool.store.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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
    Process launch(List<String> options, java.util.Map<String, String> env) throws IOException {
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
    ManagerProcess start(List<String> options, java.util.Map<String, String> env) throws Exception {
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
    java.util.Optional<ProcessHandle> redis() throws IOException {
        Path pid = home.resolve(".warmpool/redis/" + RedisServer.PID_FILE);
        return Files.exists(pid)
                ? ProcessHandle.of(Long.parseLong(Files.readString(pid).trim()))
                : java.util.Optional.empty();
    }

    /** Kills the manager, the agents it left and its Redis. */
    @Override
    public void close() throws Exception {
        if (process != null) {
            process.destroyForcibly().waitFor();
        }
        LocalAgents.killAll(redisUrl());
        redis().ifPresent(ProcessHandle::destroyForcibly);
    }
}
