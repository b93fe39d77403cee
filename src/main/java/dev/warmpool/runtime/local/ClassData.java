package dev.warmpool.runtime.local;

import dev.warmpool.protocol.AgentEnv;
import dev.warmpool.protocol.PinnedCertificate;
import dev.warmpool.store.PrivateFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * What the agents start from so that their JVM does little work of its own: a class-data archive
 * (AppCDS, JDK 17-24: 0.42 s -> 0.23 s from launch to the first Redis answer, measured here), or on
 * JDK 25 and later an AOT cache ({@code -XX:AOTCache}: classes loaded and linked ahead, lambdas and
 * string concatenations resolved; about 55 ms sooner again than the archive on JDK 25, measured
 * here). Either depends on the JVM and the agent jar, so it is made here, once per pair: a
 * throw-away agent that finds no pool runs with {@code -XX:ArchiveClassesAtExit} (or
 * {@code -XX:AOTCacheOutput}) in the background, and later agents use what it wrote. An archive or
 * cache the JVM cannot use is ignored ({@code -Xshare:auto}, or the AOT cache's default mode);
 * agents then start as before.
 */
final class ClassData {
    private static final Logger LOG = Logger.getLogger(ClassData.class);

    private final Path stateDir;
    private final String java;
    /** JVM options and entry point of every agent (see {@link LocalRuntime#launchCommand}). */
    private final List<String> launch;

    private final String redisUrl;
    /** The PEM file of the certificate its Redis must present, if pinned: the recording agent connects as agents do. */
    private final Optional<String> certificate;
    /** The options that load the archive, once there is one. */
    private volatile List<String> options = List.of();

    ClassData(Path stateDir, String java, List<String> launch, String redisUrl, Optional<String> certificate) {
        this.stateDir = stateDir;
        this.java = java;
        this.launch = List.copyOf(launch);
        this.redisUrl = redisUrl;
        this.certificate = certificate;
    }

    /** Whether this JVM (the agents' too: they run the manager's java) takes an AOT cache. */
    static boolean aot() {
        return Runtime.version().feature() >= 25;
    }

    /**
     * The agent's JVM options and entry point, with the archive once there is one. A JVM given an
     * AOT cache refuses any {@code -Xshare} option, so those go then.
     */
    List<String> command() {
        List<String> with = options;
        if (with.isEmpty()) {
            return launch;
        }
        List<String> cmd = new ArrayList<>(with);
        launch.stream().filter(o -> !aot() || !o.startsWith("-Xshare")).forEach(cmd::add);
        return cmd;
    }

    void prepare() {
        int jar = launch.indexOf("-jar");
        if (jar < 0) {
            return; // agents from the manager's class path (tests): nothing stable to archive
        }
        Path agentJar = Path.of(launch.get(jar + 1));
        Path archive;
        try {
            archive = stateDir.resolve("cds")
                    .resolve("agent-"
                            + Integer.toHexString((java + "|" + Runtime.version() + "|" + Files.size(agentJar) + "|"
                                            + Files.getLastModifiedTime(agentJar)
                                                    .toMillis())
                                    .hashCode())
                            + (aot() ? ".aot" : ".jsa"))
                    .toAbsolutePath();
        } catch (IOException e) {
            return;
        }
        if (Files.isRegularFile(archive)) {
            options = use(archive);
            return;
        }
        Thread t = new Thread(() -> record(archive), "agent-class-data");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    private static List<String> use(Path archive) {
        return List.of((aot() ? "-XX:AOTCache=" : "-XX:SharedArchiveFile=") + archive);
    }

    private void record(Path archive) {
        try {
            PrivateFiles.secureDir(archive.getParent());
            Path tmp = archive.resolveSibling(
                    archive.getFileName() + ".tmp-" + ProcessHandle.current().pid());
            // umask 077: the JVM writes the archive as the umask says
            List<String> cmd = new ArrayList<>(List.of(
                    "/bin/sh",
                    "-c",
                    "umask 077 && exec \"$0\" \"$@\"",
                    java,
                    (aot() ? "-XX:AOTCacheOutput=" : "-XX:ArchiveClassesAtExit=") + tmp));
            launch.stream().filter(o -> !aot() || !o.startsWith("-Xshare")).forEach(cmd::add);
            Path log = archive.resolveSibling("archive.log");
            if (!Files.exists(log)) {
                PrivateFiles.write(log, "");
            }
            ProcessBuilder pb = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            // a type no pool can have: the agent connects, runs its register script, finds no pool and exits
            pb.environment().clear();
            pb.environment().putAll(LocalRuntime.agentEnvironment(System.getenv()));
            pb.environment()
                    .putAll(Map.of(
                            AgentEnv.REDIS_URL,
                            redisUrl,
                            AgentEnv.POOL,
                            AgentEnv.CLASS_DATA_POOL,
                            AgentEnv.PROCESSOR_ID,
                            AgentEnv.CLASS_DATA_PROCESSOR));
            // its TLS classes land in the archive too, so agents of a pinned Redis start as fast
            certificate.ifPresent(c -> pb.environment().put(PinnedCertificate.ENV, c));
            Process p = pb.start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return;
            }
            if (p.exitValue() == 0 && Files.isRegularFile(tmp) && Files.size(tmp) > 0) {
                Files.move(tmp, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                options = use(archive);
                LOG.infof("agents start from the %s %s", aot() ? "AOT cache" : "class-data archive", archive);
            }
            Files.deleteIfExists(tmp);
        } catch (IOException e) {
            LOG.warnf("no class-data archive for agents (they start as before): %s", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
