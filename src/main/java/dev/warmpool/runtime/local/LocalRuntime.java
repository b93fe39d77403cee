package dev.warmpool.runtime.local;

import dev.warmpool.agent.AgentDirs;
import dev.warmpool.agent.room.RoomLimits;
import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.pool.PodTemplate;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.protocol.AgentEnv;
import dev.warmpool.protocol.PinnedCertificate;
import dev.warmpool.runtime.Devices;
import dev.warmpool.runtime.ProcessorRuntime;
import dev.warmpool.runtime.ResourceLimits;
import dev.warmpool.runtime.Runtimes;
import dev.warmpool.store.PrivateFiles;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * Processors as agent child processes on this machine, the embedded default. Each agent runs in
 * its own session ({@code setsid}), so Ctrl-C on the manager does not reach it and it keeps
 * serving while the manager is down; the manager finds its agents again by their command line,
 * which names the Redis they belong to.
 */
public class LocalRuntime implements ProcessorRuntime {
    private static final Logger LOG = Logger.getLogger(LocalRuntime.class);
    static final String PROCESSOR = "-Dwarmpool.processor=";
    static final String POOL = "-Dwarmpool.pool=";
    static final String REDIS = "-Dwarmpool.redis=";
    /** The devices an agent was started with, on its command line: a manager that restarts reads them back. */
    static final String DEVICES = "-Dwarmpool.devices=";

    private static final long KILL_AFTER_SECONDS = 20;

    /** Removes the cgroups of agents that exited: off the JDK's process reaper, which waits for every child. */
    private static final Executor CGROUP_CLEANER = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "cgroup-cleaner");
        t.setDaemon(true);
        return t;
    });

    private final String redisUrl;
    private final WarmpoolConfig config;
    private final List<String> launch;
    /** How the agents' jobs are fenced off (sandbox, user): passed to every agent. */
    private final JobRoom room;
    /** The machine's GPUs, each held by one processor at a time. */
    private final Devices devices;

    private volatile Runnable changed = () -> {};
    /** Told of each agent that exits; until the reconciler listens, a pass is asked for. */
    private volatile BiConsumer<String, String> gone = (type, id) -> changed.run();
    /** The agents' class-data archive (or AOT cache), once there is one. */
    private final ClassData classData;

    /** The Redis URL an agent of a pool gets (its pool's ACL user, or the manager's URL). */
    private final UnaryOperator<String> agentUrl;

    /**
     * The local runtime from warmpool's settings ({@code warmpool.runtime.local.*}): agents started as
     * processes of this machine, reaching {@code redisUrl} (the manager's Redis) as {@code agentUrl} says
     * for their pool; {@code devices}: the GPUs its processors are handed (none where another runtime holds them).
     */
    public static LocalRuntime fromConfig(
            WarmpoolConfig config, String redisUrl, UnaryOperator<String> agentUrl, Devices devices) {
        return new LocalRuntime(redisUrl, config, agentUrl, devices);
    }

    private LocalRuntime(String redisUrl, WarmpoolConfig config, UnaryOperator<String> agentUrl, Devices devices) {
        this.agentUrl = agentUrl;
        this.redisUrl = redisUrl;
        this.config = config;
        this.launch = launchCommand(config.runtime().local());
        this.classData = new ClassData(
                config.runtime().local().stateDir(),
                javaBinary(),
                launch,
                redisUrl,
                config.redis().pinnedCertificate());
        PrivateFiles.secureDir(config.runtime().local().stateDir());
        this.room = JobRoom.of(config);
        this.devices = devices;
        LOG.info(room.describe());
        if (config.runtime().pidsLimit() < 0) {
            throw new IllegalStateException(
                    "warmpool.runtime.pids-limit=" + config.runtime().pidsLimit()
                            + " is negative: give the most processes one processor may have, or 0 for no bound");
        }
        LOG.infof(
                "pool limits (cpu, memory, pids; default pids %d) are held by %s",
                config.runtime().pidsLimit(), RoomLimits.host());
        List<ProcessHandle> found = agents(redisUrl).toList();
        AgentNotes.sync(config.runtime().local().stateDir(), found);
        List<String> swept = RoomLimits.sweep(
                found.stream().map(h -> arg(h, PROCESSOR).orElse("")).collect(Collectors.toSet()));
        if (!swept.isEmpty()) {
            LOG.infof("removed the cgroups of %d processor(s) that are gone: %s", swept.size(), swept);
        }
        if (!devices.all().isEmpty()) {
            LOG.infof("devices for processors (CUDA_VISIBLE_DEVICES): %s", devices.all());
        }
    }

    /** A local processor is a process of this machine: of a template it honours only the limits (LocalTemplate). */
    @Override
    public Optional<ResourceLimits.Problem> templateProblem(PodTemplate template, Set<String> beside) {
        return LocalTemplate.problem(template, beside.contains(Runtimes.DOCKER));
    }

    /**
     * The pool's command (and each gang role's) as its jobs' user would run it here: the program is
     * there, and that user may execute it ({@link CommandCheck}). The PATH is the pool's, else the
     * one agents pass on from the manager; either finding it will do.
     */
    @Override
    public Optional<ResourceLimits.Problem> commandProblem(PoolSpec spec) {
        String path = String.join(
                ":",
                spec.env() == null ? "" : spec.env().getOrDefault("PATH", ""),
                System.getenv().getOrDefault("PATH", CommandCheck.DEFAULT_PATH));
        Optional<ResourceLimits.Problem> own = CommandCheck.problem(
                        spec.command(), path, spec.workingDir(), room.jobUser())
                .map(why -> new ResourceLimits.Problem("command", "The pool's command cannot run: " + why + "."));
        if (own.isPresent() || spec.gang() == null) {
            return own;
        }
        return spec.gang().entrySet().stream()
                .flatMap(role ->
                        CommandCheck.problem(role.getValue().command(), path, spec.workingDir(), room.jobUser())
                                .map(why -> new ResourceLimits.Problem(
                                        "gang[" + role.getKey() + "].command",
                                        "The command of role '" + role.getKey() + "' cannot run: " + why + "."))
                                .stream())
                .findFirst();
    }

    @Override
    public Optional<Devices> devices() {
        return Optional.of(devices);
    }

    @Override
    public void start(String type, String processorId, PoolSpec spec) {
        List<String> cmd = new ArrayList<>();
        if (Files.isExecutable(Path.of("/usr/bin/setsid"))) {
            cmd.add("/usr/bin/setsid");
        }
        cmd.add(javaBinary());
        cmd.add(PROCESSOR + processorId);
        cmd.add(POOL + type);
        cmd.add(REDIS + withoutCredentials(redisUrl));
        List<String> own = devices.assign(processorId, Devices.perProcessor(spec));
        if (!own.isEmpty()) {
            cmd.add(DEVICES + Devices.join(own));
        }
        cmd.addAll(classData.command());
        Path logs = config.runtime().local().stateDir().resolve("logs");
        try {
            PrivateFiles.secureDir(logs);
            Path log = logs.resolve(type + "-" + processorId + ".log");
            if (!Files.exists(log)) {
                PrivateFiles.write(log, "");
            }
            ProcessBuilder pb = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            Map<String, String> env = pb.environment();
            // built from an allowlist, never the manager's own: a job could read it in /proc/<agent>/environ
            env.clear();
            env.putAll(agentEnvironment(System.getenv()));
            env.putAll(room.environment());
            env.put(
                    AgentEnv.REDIS_URL_FILE,
                    secretFile(processorId, agentUrl.apply(type)).toString());
            env.putAll(ResourceLimits.bounds(
                            spec == null ? null : spec.template(),
                            config.runtime().pidsLimit())
                    .environment());
            // the certificate its Redis must show before the agent sends its password (not secret: a path)
            config.redis().pinnedCertificate().ifPresent(c -> env.put(PinnedCertificate.ENV, c));
            env.put(AgentEnv.POOL, type);
            env.put(AgentEnv.PROCESSOR_ID, processorId);
            if (!own.isEmpty()) {
                // the agent passes it on to its jobs and workers (CUDA numbers the devices it names 0, 1, ...)
                env.put("CUDA_VISIBLE_DEVICES", Devices.join(own));
                env.put(AgentEnv.PASS_ENV, "CUDA_VISIBLE_DEVICES");
            }
            if (spec != null && spec.isGang()) {
                env.put("WARMPOOL_GANG_MEMBER", "1"); // the agent takes a loopback port for its job to serve on
            }
            env.put(
                    AgentEnv.HEARTBEAT_INTERVAL_MS,
                    Long.toString(config.heartbeat().interval().toMillis()));
            env.put(
                    AgentEnv.RETENTION_SECONDS,
                    Long.toString(config.jobs().retention().toSeconds()));
            env.put(AgentEnv.LOG_LINES, Integer.toString(config.jobs().logLines()));
            env.put(AgentEnv.MAX_RESULT_BYTES, Integer.toString(config.runtime().maxResultBytes()));
            ManagerPort.now().ifPresent(port -> env.put(AgentEnv.API_ADDRESS, "127.0.0.1:" + port));
            config.events()
                    .sink()
                    .or(() -> Optional.ofNullable(System.getenv("K_SINK")))
                    .ifPresent(sink -> env.put("K_SINK", sink));
            Process p = pb.start();
            Path stateDir = config.runtime().local().stateDir();
            AgentNotes.note(stateDir, processorId, p.toHandle()); // for stop, whatever its environment
            // an agent that exits (retired, spent, crashed, killed) is handled and replaced at once, not
            // after the orphan grace: this manager held the child, so its exit is certain
            p.onExit()
                    .thenRun(() -> gone.accept(type, processorId))
                    .thenRunAsync(() -> cleanUp(stateDir, processorId), CGROUP_CLEANER);
            LOG.infof("started processor %s of pool %s (pid %d)", processorId, type, p.pid());
        } catch (IOException e) {
            devices.release(processorId);
            throw new UncheckedIOException("could not start an agent for pool " + type, e);
        }
    }

    /**
     * The agent is gone: so are its note, its private dir (one that was killed could not remove
     * it) and its room's cgroups (what is left in them is killed).
     */
    private void cleanUp(Path stateDir, String processorId) {
        AgentNotes.forget(stateDir, processorId);
        AgentDirs.removeOf(agentTmp(launch), processorId);
        removeCgroups(processorId);
    }

    /** The agents' java.io.tmpdir, where they keep their processors' dirs: the JVM's default unless its options set it. */
    static Path agentTmp(List<String> launch) {
        String option = "-Djava.io.tmpdir=";
        return launch.stream()
                .filter(o -> o.startsWith(option))
                .reduce((a, b) -> b)
                .map(o -> Path.of(o.substring(option.length())))
                .orElse(Path.of("/tmp"));
    }

    private static void removeCgroups(String processorId) {
        List<Path> left = RoomLimits.remove(processorId);
        if (!left.isEmpty()) {
            LOG.warnf(
                    "could not remove the cgroups %s of processor %s (busy): the next start sweeps them",
                    left, processorId);
        }
    }

    /**
     * The Redis URL for one agent, in a file only this user can read, which the agent deletes as
     * soon as it has read it: neither {@code ps} nor a job's {@code /proc/<agent>/environ} shows it.
     */
    private Path secretFile(String processorId, String url) throws IOException {
        Path dir = PrivateFiles.secureDir(config.runtime().local().stateDir().resolve("run"))
                .toAbsolutePath();
        Path file = dir.resolve(processorId + ".redis");
        PrivateFiles.write(file, url);
        return file;
    }

    /** What of the manager's environment an agent gets: what programs expect, nothing of warmpool's or Quarkus's. */
    static final List<String> AGENT_ENV =
            List.of("PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "USER", "LOGNAME", "SHELL", "TERM");

    static Map<String, String> agentEnvironment(Map<String, String> manager) {
        Map<String, String> out = new HashMap<>();
        manager.forEach((k, v) -> {
            if (AGENT_ENV.contains(k) || k.startsWith("LC_")) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** A Redis URL as an agent's command line names it (to find it again): without user or password. */
    static String withoutCredentials(String url) {
        StringBuilder out = new StringBuilder();
        for (String one : url.split(",")) {
            int scheme = one.indexOf("://");
            int at = one.lastIndexOf('@');
            out.append(out.length() == 0 ? "" : ",")
                    .append(scheme >= 0 && at > scheme ? one.substring(0, scheme + 3) + one.substring(at + 1) : one);
        }
        return out.toString();
    }

    /** Makes the agents' class-data archive or AOT cache in the background, once per JVM and agent jar. */
    @Override
    public void prepare() {
        classData.prepare();
    }

    @Override
    public void onChange(Runnable changed) {
        this.changed = changed;
    }

    @Override
    public void onGone(BiConsumer<String, String> gone) {
        this.gone = gone;
    }

    @Override
    public void stop(String type, String processorId) {
        agents(redisUrl)
                .filter(h -> arg(h, PROCESSOR).filter(processorId::equals).isPresent())
                .forEach(h -> {
                    LOG.infof("stopping processor %s of pool %s (pid %d)", processorId, type, h.pid());
                    h.destroy();
                    CompletableFuture.delayedExecutor(KILL_AFTER_SECONDS, TimeUnit.SECONDS)
                            .execute(() -> {
                                if (h.isAlive()) {
                                    h.destroyForcibly();
                                }
                            });
                });
    }

    @Override
    public List<Running> list() {
        List<Running> out = agents(redisUrl)
                .map(h -> new Running(
                        arg(h, POOL).orElse(""),
                        arg(h, PROCESSOR).orElse(""),
                        h.info().startInstant().map(Instant::toEpochMilli).orElse(0L),
                        Devices.split(arg(h, DEVICES).orElse(""))))
                .toList();
        Map<String, List<String>> held = new HashMap<>();
        out.forEach(r -> held.put(r.processorId(), r.devices()));
        devices.held(held);
        return out;
    }

    /** The live agents that serve the Redis at {@code redisUrl}, by their command line. */
    static Stream<ProcessHandle> agents(String redisUrl) {
        String marker = REDIS + withoutCredentials(redisUrl);
        return ProcessHandle.allProcesses()
                .filter(h -> h.isAlive() && arguments(h).contains(marker));
    }

    static Optional<String> arg(ProcessHandle h, String prefix) {
        return arguments(h).stream()
                .filter(s -> s.startsWith(prefix))
                .findFirst()
                .map(s -> s.substring(prefix.length()));
    }

    /**
     * A process's arguments. On Linux they come from /proc/PID/cmdline in full: the JDK gives no
     * arguments for a long command line (an agent started with a test class path has one).
     */
    static List<String> arguments(ProcessHandle h) {
        Path cmdline = Path.of("/proc", Long.toString(h.pid()), "cmdline");
        try {
            if (Files.isReadable(cmdline)) {
                return List.of(new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8).split("\0"));
            }
        } catch (IOException e) {
            return List.of(); // the process ended while we looked
        }
        return h.info().arguments().map(List::of).orElse(List.of());
    }

    /** target/warmpool-agent.jar beside the running quarkus-app, or under the working directory. */
    private static Optional<Path> defaultAgentJar() {
        String cp = System.getProperty("java.class.path", "");
        Stream<Path> beside = cp.endsWith("quarkus-run.jar")
                ? Stream.of(Path.of(cp).toAbsolutePath().getParent().resolveSibling("warmpool-agent.jar"))
                : Stream.empty();
        return Stream.concat(beside, Stream.of(Path.of("target", "warmpool-agent.jar")))
                .filter(Files::isRegularFile)
                .findFirst();
    }

    static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** JVM options and the agent's entry point: the agent jar when there is one, else this class path. */
    static List<String> launchCommand(WarmpoolConfig.Local local) {
        List<String> cmd = new ArrayList<>(local.jvmOptions());
        if (Runtime.version().feature() <= 25 && cmd.stream().noneMatch(o -> o.contains("launchMechanism"))) {
            // vfork spawns a job's process in about 3 ms where posix_spawn takes 5 (JDK 17-25 have it;
            // 25 warns once that it is deprecated, so later JDKs go without)
            cmd.add("-Djdk.lang.Process.launchMechanism=VFORK");
        }
        if (local.agentJar().isPresent()
                && !Files.isRegularFile(local.agentJar().get())) {
            throw new IllegalStateException(
                    "warmpool.runtime.local.agent-jar=" + local.agentJar().get()
                            + " is not a file: build it with ./mvnw package, or leave the setting out");
        }
        Optional<Path> jar =
                local.agentFromClassPath() ? Optional.empty() : local.agentJar().or(LocalRuntime::defaultAgentJar);
        if (jar.isPresent()) {
            cmd.add("-jar");
            cmd.add(jar.get().toAbsolutePath().toString());
        } else {
            LOG.infof("no agent jar (set warmpool.runtime.local.agent-jar); agents run from the manager's class path");
            cmd.add("-cp");
            cmd.add(System.getProperty("java.class.path"));
            cmd.add("dev.warmpool.agent.Agent");
        }
        return cmd;
    }
}
