package dev.warmpool.runtime;

import dev.warmpool.agent.AgentDirs;
import dev.warmpool.runtime.docker.DockerEngine;
import dev.warmpool.runtime.docker.DockerRuntime;
import dev.warmpool.runtime.local.AgentNotes;
import dev.warmpool.store.PrivateFiles;
import dev.warmpool.store.RedisServer;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * {@code java -jar quarkus-run.jar stop}: stops one install, the one whose state dir this is, from
 * what its state dir notes (never from the environment {@code stop} runs in, which may lack the
 * settings the manager ran with), and nothing of another user's or another install's on the same
 * machine. In order: its managers ({@code managers/<pid>}), so that none starts anything again;
 * its local agents ({@code agents/<processor id>}, see {@link AgentNotes}) and what they left
 * running (a persistent worker, a job), and their private dirs; its containers on the docker
 * runtime ({@code docker}: the engine and the instance label), with their anonymous volumes and
 * gang networks; then the Redis the run command started for it ({@code redis-dir}). A note counts
 * only while its process is the one noted (pid and start time), so a pid that another process has
 * taken since is left alone. Run when no manager runs, it still cleans what the last one left.
 */
public final class StopCommand {
    private static final Logger LOG = Logger.getLogger(StopCommand.class);
    static final String MANAGERS = "managers";
    /** The data dir of the Redis the run command started for this install. */
    static final String REDIS_DIR = "redis-dir";
    /** The docker runtime's engine and instance label ({@code host=}, {@code instance=}). */
    static final String DOCKER = "docker";

    private static final Duration MANAGER_GRACE = Duration.ofSeconds(20);
    private static final Duration AGENT_GRACE = Duration.ofSeconds(10);
    /** What an agent left running after it ended (it had the agent's grace already): a short one. */
    private static final Duration LEFT_GRACE = Duration.ofSeconds(2);

    private StopCommand() {}

    /** Notes this manager in the state dir, for {@code stop}; the note goes when the manager ends. */
    public static void register(Path stateDir) {
        Path me;
        try {
            me = noteManager(stateDir, ProcessHandle.current());
        } catch (IllegalStateException e) {
            // a manager in a read-only folder (a pod's) runs all the same; stop cannot find it
            LOG.warnf("%s: `stop` will not find this manager", e.getMessage());
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> me.toFile().delete(), "forget-manager"));
    }

    /** Notes {@code manager} (its pid and start time) in the state dir; returns the note. */
    static Path noteManager(Path stateDir, ProcessHandle manager) {
        try {
            Path dir = PrivateFiles.secureDir(stateDir.resolve(MANAGERS));
            Path note = dir.resolve(Long.toString(manager.pid()));
            PrivateFiles.write(note, AgentNotes.startMillis(manager).orElse(""));
            return note;
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot note this manager in " + stateDir + " (" + e.getMessage() + ")", e);
        }
    }

    /**
     * Notes the data dir of the Redis the run command started for this install, or (empty) that
     * the install has none: it was given a Redis ({@code quarkus.redis.hosts}), which is not its to stop.
     */
    public static void noteRedis(Path stateDir, Optional<Path> redisDir) {
        note(
                stateDir,
                REDIS_DIR,
                redisDir.map(d -> d.toAbsolutePath().toString()).orElse(""));
    }

    /** Notes the docker runtime's engine and the instance label its containers carry. */
    public static void noteDocker(Path stateDir, String host, String instance) {
        note(stateDir, DOCKER, "host=" + host + "\ninstance=" + instance + "\n");
    }

    private static void note(Path stateDir, String name, String text) {
        try {
            PrivateFiles.secureDir(stateDir);
            PrivateFiles.write(stateDir.resolve(name), text);
        } catch (IOException | RuntimeException e) {
            LOG.warnf("cannot note %s in %s (%s): `stop` will not find it", name, stateDir, e.getMessage());
        }
    }

    /**
     * Stops the install of {@code stateDir}; {@code redisDir}: where its own Redis keeps its data
     * when the state dir does not say (a manager older than that note), if it has one. Returns the
     * exit code.
     */
    public static int run(Path stateDir, Optional<Path> redisDir, PrintStream out) {
        int managers = stopAll(managers(stateDir), MANAGER_GRACE);
        int agents = stopAgents(stateDir);
        String containers = docker(stateDir).map(StopCommand::stopContainers).orElse("");
        Optional<String> noted = read(stateDir.resolve(REDIS_DIR));
        String redis = (noted.isPresent() ? noted.filter(d -> !d.isEmpty()).map(Path::of) : redisDir)
                .map(StopCommand::stopRedis)
                .orElse("not ours (quarkus.redis.hosts): left running");
        out.printf(
                "stopped %d manager(s) and %d agent(s)%s of %s; Redis: %s%n",
                managers, agents, containers, stateDir.toAbsolutePath(), redis);
        return 0;
    }

    /** The live managers noted in the state dir (a note whose process is gone, or is another, is dropped). */
    static List<ProcessHandle> managers(Path stateDir) {
        Path dir = stateDir.resolve(MANAGERS);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> notes = Files.list(dir)) {
            return notes.flatMap(note -> {
                        String started = read(note).orElse("");
                        Optional<ProcessHandle> h = parse(note.getFileName().toString())
                                .flatMap(ProcessHandle::of)
                                .filter(p -> started.isEmpty()
                                        // a note of an older manager names no start: its JVM, then
                                        ? p.info()
                                                .command()
                                                .map(c -> c.endsWith("java"))
                                                .orElse(false)
                                        : AgentNotes.startMillis(p)
                                                .map(started::equals)
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

    /**
     * The noted agents, then what they leave running (a persistent worker, a job's processes
     * that an agent killed after its grace could not end), then their dirs. Returns how many agents.
     */
    static int stopAgents(Path stateDir) {
        List<AgentNotes.Agent> agents = AgentNotes.live(stateDir);
        // seen before the agents end: once they have, what they leave belongs to init
        List<ProcessHandle> beneath = new ArrayList<>();
        agents.forEach(a -> a.process().descendants().forEach(beneath::add));
        stopAll(agents.stream().map(AgentNotes.Agent::process).toList(), AGENT_GRACE);
        stopAll(beneath.stream().filter(ProcessHandle::isAlive).toList(), LEFT_GRACE);
        agents.forEach(a -> AgentDirs.removeOf(Path.of(System.getProperty("java.io.tmpdir")), a.processorId()));
        AgentNotes.live(stateDir); // drops the notes of the agents that ended
        return agents.size();
    }

    private static Optional<Map<String, String>> docker(Path stateDir) {
        return read(stateDir.resolve(DOCKER)).map(text -> {
            Properties p = new Properties();
            try {
                p.load(new StringReader(text));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Map<String, String> out = new HashMap<>();
            p.forEach((k, v) -> out.put(k.toString(), v.toString()));
            return out;
        });
    }

    /** ", N container(s)" on the noted engine, or why none could be stopped. */
    private static String stopContainers(Map<String, String> note) {
        String host = note.getOrDefault("host", "unix:///var/run/docker.sock");
        String instance = note.get("instance");
        if (instance == null) {
            return ", no containers (the docker note names no instance)";
        }
        try (var docker = DockerEngine.client(host)) {
            return ", " + DockerRuntime.removeInstance(docker, instance, AGENT_GRACE) + " container(s)";
        } catch (IOException | RuntimeException e) {
            return ", containers not stopped (the docker engine at " + host + ": " + e.getMessage() + ")";
        }
    }

    private static Optional<String> read(Path note) {
        try {
            return Files.isRegularFile(note)
                    ? Optional.of(Files.readString(note).trim())
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
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
                try {
                    h.onExit().get(5, TimeUnit.SECONDS);
                } catch (Exception notYet) {
                    // killed; its reaping is init's
                }
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
