package dev.warmpool.runtime.local;

import dev.warmpool.agent.room.Sandbox;
import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.protocol.AgentEnv;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * How the local runtime's agents fence their jobs off, decided once at start from
 * {@code warmpool.runtime.local.sandbox} and {@code run-as}: whether each job runs in a
 * bubblewrap sandbox, which of the manager's paths it must not see (the state dir, the Redis
 * data dir, the tokens file), and the unprivileged user it runs as when the manager is root.
 * The agent applies it ({@link Sandbox}) from the variables {@link #environment()} gives.
 */
record JobRoom(boolean bwrap, List<String> hidden, String runAs, String userName, String jobUids, String init) {

    static JobRoom of(WarmpoolConfig config) {
        WarmpoolConfig.Local local = config.runtime().local();
        boolean bwrap = switch (local.sandbox()) {
            case "bwrap" -> {
                Optional<String> broken = probe();
                if (broken.isPresent()) {
                    throw new IllegalStateException(
                            "warmpool.runtime.local.sandbox=bwrap, but bubblewrap does not work here (" + broken.get()
                                    + "): install it (Debian: apt-get install bubblewrap), or set the sandbox to auto or none");
                }
                yield true;
            }
            case "auto" -> probe().isEmpty();
            case "none" -> false;
            default ->
                throw new IllegalStateException(
                        "warmpool.runtime.local.sandbox=" + local.sandbox() + " is not one of auto, bwrap, none");
        };
        List<String> hidden = new ArrayList<>();
        hidden.add(local.stateDir().toAbsolutePath().normalize().toString());
        hidden.add(redisDir().toAbsolutePath().normalize().toString());
        config.auth()
                .tokensFile()
                .ifPresent(f -> hidden.add(f.toAbsolutePath().normalize().toString()));
        boolean root = "root".equals(System.getProperty("user.name"));
        String user = switch (local.runAs()) {
            case "auto", "self", "" -> null;
            default -> local.runAs();
        };
        // auto, root: each processor takes a uid of its own from the range (the agent claims it)
        String jobUids = root && "auto".equals(local.runAs()) ? local.jobUids() : null;
        // a path inside another hidden one is hidden with it (its own mount would show its name)
        List<String> outermost = hidden.stream()
                .distinct()
                .filter(h -> hidden.stream()
                        .noneMatch(o -> !o.equals(h) && Path.of(h).startsWith(Path.of(o))))
                .toList();
        return new JobRoom(bwrap, outermost, user == null ? null : ids(user), user, jobUids, roomInit(local));
    }

    /** The embedded Redis's data dir, as the run command (WarmpoolMain) chose it. */
    static Path redisDir() {
        String dir = System.getProperty("warmpool.redis.embedded-dir", System.getenv("WARMPOOL_REDIS_EMBEDDED_DIR"));
        return Path.of(dir == null || dir.isBlank() ? ".warmpool/redis" : dir);
    }

    /** wp-room: the configured one, else target/wp-room beside the agent jar or under the working dir; null: none. */
    static String roomInit(WarmpoolConfig.Local local) {
        if (local.roomInit().isPresent()) {
            if (!Files.isExecutable(local.roomInit().get())) {
                throw new IllegalStateException(
                        "warmpool.runtime.local.room-init=" + local.roomInit().get()
                                + " is not an executable: build it with ./mvnw package (it needs a C compiler), or leave the setting out");
            }
            return local.roomInit().get().toAbsolutePath().toString();
        }
        String cp = System.getProperty("java.class.path", "");
        Stream<Path> beside = cp.endsWith("quarkus-run.jar")
                ? Stream.of(Path.of(cp).toAbsolutePath().getParent().resolveSibling("wp-room"))
                : Stream.empty();
        return Stream.concat(beside, Stream.of(Path.of("target", "wp-room")))
                .filter(Files::isExecutable)
                .findFirst()
                .map(p -> p.toAbsolutePath().toString())
                .orElse(null);
    }

    /** Who runs the jobs, for {@link CommandCheck}: a run-as user, a job uid (the range's first), or the manager's own. */
    CommandCheck.JobUser jobUser() {
        if (runAs != null) {
            String[] ids = runAs.split(":");
            return new CommandCheck.JobUser(Integer.valueOf(ids[0]), Integer.valueOf(ids.length > 1 ? ids[1] : ids[0]));
        }
        if (jobUids != null) {
            int first = Integer.parseInt(jobUids.split("-")[0].trim());
            return new CommandCheck.JobUser(first, first); // a claimed uid's gid is the uid (Sandbox)
        }
        return CommandCheck.JobUser.SELF;
    }

    /** What the agent reads: WARMPOOL_SANDBOX, WARMPOOL_SANDBOX_HIDE, WARMPOOL_RUN_AS or WARMPOOL_JOB_UIDS, WARMPOOL_ROOM_INIT. */
    Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put(AgentEnv.SANDBOX, bwrap ? "bwrap" : "none");
        env.put("WARMPOOL_SANDBOX_HIDE", String.join(File.pathSeparator, hidden));
        if (runAs != null) {
            env.put(AgentEnv.RUN_AS, runAs);
        }
        if (jobUids != null) {
            env.put("WARMPOOL_JOB_UIDS", jobUids);
        }
        if (init != null) {
            env.put(AgentEnv.ROOM_INIT, init);
        }
        return env;
    }

    /** The line said at every start: what a job can reach. */
    String describe() {
        String who = userName != null
                ? "as user " + userName + " (" + runAs + ")"
                : jobUids != null ? "as a uid of each processor's own (" + jobUids + ")" : "as the manager's user";
        if (bwrap && init == null) {
            who += "; no wp-room (build it with ./mvnw package and a C compiler, e.g. apt-get install musl-tools):"
                    + " each job gets a bwrap of its own";
        }
        return bwrap
                ? "jobs run sandboxed by bubblewrap " + who
                        + ": own PID namespace, read-only file system, private /tmp;" + " not visible to them: "
                        + String.join(", ", hidden)
                : "NO SANDBOX for jobs (warmpool.runtime.local.sandbox=none, or bubblewrap is missing): jobs run " + who
                        + " in their own dir and session, and can read every file that user can, the state dir included;"
                        + " install bubblewrap (Debian: apt-get install bubblewrap) to fence them off";
    }

    /** Empty when {@code bwrap} runs a command here; else what went wrong. */
    static Optional<String> probe() {
        Optional<Path> bwrap = Stream.of(
                        System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .filter(d -> !d.isEmpty())
                .map(d -> Path.of(d, "bwrap"))
                .filter(Files::isExecutable)
                .findFirst();
        if (bwrap.isEmpty()) {
            return Optional.of("no bwrap on PATH");
        }
        try {
            // what every room starts with (the agent's Sandbox.base), running true
            List<String> command = new ArrayList<>(Sandbox.base());
            command.set(0, bwrap.get().toString());
            command.add("true");
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.of("bwrap did not answer within 10 s");
            }
            String out = new String(p.getInputStream().readAllBytes()).trim();
            return p.exitValue() == 0 ? Optional.empty() : Optional.of("bwrap exited " + p.exitValue() + ": " + out);
        } catch (IOException e) {
            return Optional.of(e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted");
        }
    }

    /** {@code uid:gid} of a user, from /etc/passwd. */
    static String ids(String user) {
        try (Stream<String> lines = Files.lines(Path.of("/etc/passwd"))) {
            return lines.map(l -> l.split(":"))
                    .filter(f -> f.length > 3 && f[0].equals(user))
                    .findFirst()
                    .map(f -> f[2] + ":" + f[3])
                    .orElseThrow(() -> new IllegalStateException("warmpool.runtime.local.run-as=" + user
                            + ": no such user in /etc/passwd; make it, or name another (self: the manager's own)"));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read /etc/passwd to find user " + user + ": " + e.getMessage(), e);
        }
    }
}
