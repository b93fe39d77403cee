package dev.warmpool.agent;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.warmpool.agent.io.AgentJson;
import dev.warmpool.agent.room.Sandbox;
import dev.warmpool.agent.worker.Worker;
import dev.warmpool.agent.worker.WorkerSlot;
import dev.warmpool.protocol.Relay;
import dev.warmpool.protocol.script.Run;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Turns a job that Redis marked running on this processor into a {@link JobRun}: its command (a
 * gang member's: its role's own), its environment from scratch ({@link ChildEnv}), its room
 * ({@link Sandbox}), a persistent worker's call ({@link WorkerSlot}). The pool's part of a job
 * ({@link PoolPart}) is parsed once and kept while it does not change; the pool's limits go to
 * the {@link Lifetime}. Only the agent's loop thread uses it.
 */
final class JobStarter {
    /** A pool command that the agent runs itself, as a no-op: the ceiling of dispatch without spawn. */
    static final String NOOP = "warmpool:noop";

    /** A job made ready: its run, and whether it is the in-agent no-op (nothing to spawn). */
    record Started(JobRun run, boolean noop) {}

    private final AgentConfig config;
    private final RedisLink redis;
    private final Sandbox sandbox;
    private final Map<String, String> baseEnv;
    private final WorkerSlot workers;
    private final Reporter reporter;
    private final Consumer<AgentEvent> events;
    private final Lifetime lifetime;
    private PoolPart poolPart;

    JobStarter(
            AgentConfig config,
            RedisLink redis,
            Sandbox sandbox,
            Map<String, String> baseEnv,
            WorkerSlot workers,
            Reporter reporter,
            Consumer<AgentEvent> events,
            Lifetime lifetime) {
        this.config = config;
        this.redis = redis;
        this.sandbox = sandbox;
        this.baseEnv = baseEnv;
        this.workers = workers;
        this.reporter = reporter;
        this.events = events;
        this.lifetime = lifetime;
    }

    /** The pool's part of the last job (null before the first): the reset command runs in it. */
    PoolPart poolPart() {
        return poolPart;
    }

    /** What the pool (not the job) names that a room binds back over a hidden home: its command's and env's values. */
    static List<String> named(PoolPart pool, JsonObject role) {
        List<String> out = new ArrayList<>(pool.command());
        out.addAll(pool.env().values());
        if (role != null && role.has("command") && role.get("command").isJsonArray()) {
            out.addAll(AgentJson.strings(role.get("command")));
        }
        if (role != null && role.has("env") && role.get("env").isJsonObject()) {
            out.addAll(AgentJson.stringMap(role.get("env")).values());
        }
        return out;
    }

    /**
     * A sweep driver's way to the API (its job carries a token): a socket in its dir relayed to the
     * manager, named in {@code WARMPOOL_URL}, and the token in {@code WARMPOOL_TOKEN}. Throws where this
     * agent knows no manager address (a container's: only the local runtime relays) or the socket fails.
     */
    private ApiRelay apiWay(Path dir, Map<String, String> env, Run r) throws IOException {
        if (config.apiAddress() == null || config.apiAddress().isBlank()) {
            throw new IOException("only the local runtime's agents relay to the manager; run the driver pool there");
        }
        Path socket = dir.resolve(Relay.SOCKET);
        ApiRelay relay = ApiRelay.open(socket, config.apiAddress(), sandbox::handOver);
        env.put("WARMPOOL_URL", "http+unix://" + percentEncoded(socket.toString()));
        env.put("WARMPOOL_TOKEN", r.apiToken());
        return relay;
    }

    /** {@code s} with every byte but letters, digits and {@code -._~} as %XX (a socket path as a URL's host). */
    static String percentEncoded(String s) {
        StringBuilder b = new StringBuilder();
        for (byte c : s.getBytes(StandardCharsets.UTF_8)) {
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) {
                b.append((char) c);
            } else {
                b.append('%').append(String.format("%02X", c & 0xff));
            }
        }
        return b.toString();
    }

    /** The job ready to run, or null when it could not be (its outcome is posted already). */
    Started prepare(String jobId, String token, Run r) {
        List<String> args = AgentJson.strings(r.argsJson());
        Map<String, String> jobEnv = ChildEnv.allowed(jobId, AgentJson.stringMap(r.envJson()));
        long timeoutSeconds = r.timeoutSeconds();
        PoolPart pool = PoolPart.of(poolPart, r.commandJson(), r.poolEnvJson(), r.specJson());
        poolPart = pool;
        List<String> poolCommand = pool.command();
        JsonObject spec = pool.spec();
        String workingDir = AgentJson.text(spec, "workingDir");
        lifetime.follow(spec);
        String gang = r.gangJson();
        JsonObject member = gang == null || gang.isEmpty()
                ? null
                : JsonParser.parseString(gang).getAsJsonObject();
        JsonObject role = member == null
                ? null
                : spec.getAsJsonObject("gang")
                        .getAsJsonObject(member.get("role").getAsString());
        sandbox.follow(AgentJson.text(spec, "network"), named(pool, role), workingDir);
        List<String> command = new ArrayList<>(
                role != null && role.has("command") && role.get("command").isJsonArray()
                        ? AgentJson.strings(role.get("command"))
                        : poolCommand); // a gang member: its role's own command
        command.addAll(args);
        Path dir;
        try {
            dir = sandbox.newJobDir(jobId);
        } catch (IOException e) {
            events.accept(JobRun.notStarted(jobId, token, "could not make the job's working dir: " + e.getMessage()));
            return null;
        }
        Map<String, String> env = ChildEnv.forJob(
                baseEnv, pool.env(), role, jobEnv, member, jobId, r.configJson(), dir.resolve(JobRun.RESULT));
        if (sandbox.otherUser() || sandbox.hidesHome()) {
            env.put("HOME", dir.toString()); // the manager's home is not the job's user's, or hidden
            if (env.containsKey(ChildEnv.CONFIG_FILE_VARIABLE)) {
                sandbox.handOver(dir.resolve(ChildEnv.CONFIG_FILE)); // a large config's file, written by the agent
            }
        }
        ApiRelay relay = null;
        if (!r.apiToken().isEmpty() && !WorkerSlot.persistent(spec)) {
            try {
                relay = apiWay(dir, env, r);
            } catch (IOException | RuntimeException e) {
                // a driver with no way to its sweep cannot do anything: it fails now, saying why
                Sandbox.remove(dir);
                events.accept(JobRun.notStarted(
                        jobId, token, "this sweep driver's way to the API could not be opened: " + e.getMessage()));
                return null;
            }
        }
        Map<String, String> poolEnv = pool.env();
        Worker w = null;
        String request = null;
        if (WorkerSlot.persistent(spec)) {
            w = workers.forTenant(r.tenant(), poolCommand, poolEnv, workingDir);
            request = WorkerSlot.request(jobId, r, args, jobEnv);
        }
        int logLines = config.logLines();
        JobRun run = new JobRun(
                new JobRun.Launch(jobId, token, command, env, workingDir, timeoutSeconds * 1000, dir),
                sandbox,
                new JobRun.Hooks(
                        events::accept,
                        reporter::report,
                        () -> logLines > 0 ? new LiveLog(redis, config.processorId(), jobId, token, logLines) : null));
        if (w != null) {
            run.toWorker(w, request);
        }
        run.limitResult(config.maxResultBytes());
        if (relay != null) {
            run.closeAtEnd(relay);
        }
        // the benchmarks' in-agent no-op: the dispatch path without a process spawn
        return new Started(run, command.size() == 1 && NOOP.equals(command.get(0)));
    }
}
