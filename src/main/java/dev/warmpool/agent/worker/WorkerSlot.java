package dev.warmpool.agent.worker;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.warmpool.agent.io.AgentJson;
import dev.warmpool.agent.io.AgentLog;
import dev.warmpool.agent.room.HostTmp;
import dev.warmpool.agent.room.Sandbox;
import dev.warmpool.protocol.AgentEnv;
import dev.warmpool.protocol.script.Run;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A persistent pool's one long-lived worker process (see {@link Worker}): started as soon as
 * the processor registers, so the first job finds it warm; replaced when the pool's command or
 * env changes, and when a job of another tenant than the one it served comes: an interpreter
 * keeps what one job left (modules, globals, caches, files in its dir), which may be passed on
 * within one tenant (its own sweep's trials), never to another. Killed when the agent ends. The
 * agent's loop alone calls it.
 */
public final class WorkerSlot {
    static final String WORKER_DIR = "worker";
    private final Map<String, String> baseEnv;
    private final String processorId;
    private final String pool;
    private final Sandbox sandbox;
    private final int maxLine;
    private Worker worker;
    /** The host's /tmp as the worker's bwrap shows it. */
    private List<String> workerShown;
    /** The tenant whose jobs the worker has served since it started (null: none yet). */
    private String servedTenant;

    /** {@code maxLine}: the longest line a worker may print on stdout, in bytes (its answer is one). */
    public WorkerSlot(Map<String, String> baseEnv, String processorId, String pool, Sandbox sandbox, int maxLine) {
        this.sandbox = sandbox;
        this.maxLine = maxLine;
        this.baseEnv = baseEnv;
        this.processorId = processorId;
        this.pool = pool;
    }

    public static boolean persistent(JsonObject spec) {
        return "persistent".equals(AgentJson.text(spec, "worker"));
    }

    /**
     * How long a persistent worker must stay up after its start before the processor registers. A
     * worker that exits sooner (a command that is missing or that the jobs' user may not run, a
     * module it cannot import) would fail every job sent to it, so its processor is a start error,
     * not an idle processor. Short, as a healthy worker's processor registers this much later; its
     * import goes on meanwhile, and the first job waits for that anyway.
     */
    static final long START_GRACE_MILLIS = 500;

    /** Starts the worker of a persistent pool's spec in the background; nothing for other pools. */
    public void warmUp(String specJson) {
        List<String> command = persistentCommand(specJson);
        if (command == null) {
            return;
        }
        Worker w = forSpec(specJson);
        Thread t = new Thread(
                () -> {
                    try {
                        w.ensureStarted();
                    } catch (IOException e) {
                        AgentLog.log("could not start the persistent worker %s: %s", command, e.getMessage());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "worker-start");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Starts the worker of a persistent pool's spec now, before the processor registers, and
     * watches it for {@link #START_GRACE_MILLIS}: why it cannot serve (it could not be started, or
     * it exited in that time: its exit code and last words), or null when it is up or the pool is
     * not a persistent one.
     */
    public String startNow(String specJson) throws InterruptedException {
        List<String> command = persistentCommand(specJson);
        if (command == null) {
            return null;
        }
        Worker w = forSpec(specJson);
        try {
            w.ensureStarted();
        } catch (IOException e) {
            return "could not start the persistent worker " + command + ": " + e.getMessage();
        }
        Worker.Exit exit = w.endedWithin(START_GRACE_MILLIS);
        return exit == null ? null : exitedAtOnce(command, exit);
    }

    /** The start error of a worker that exited within its grace: the command, its exit code, its stderr's end. */
    static String exitedAtOnce(List<String> command, Worker.Exit exit) {
        String said = exit.stderr().strip();
        if (said.length() > 1000) {
            said = "..." + said.substring(said.length() - 1000);
        }
        return "the persistent worker " + command + " exited at once (exit " + exit.code()
                + (exit.code() == 126 ? ": its user may not run it" : exit.code() == 127 ? ": not found" : "")
                + ")" + (said.isEmpty() ? "" : ": " + said);
    }

    /** A persistent pool's command, or null for a pool of another kind. */
    private static List<String> persistentCommand(String specJson) {
        JsonObject spec = JsonParser.parseString(specJson).getAsJsonObject();
        return persistent(spec) ? AgentJson.strings(spec.get("command")) : null;
    }

    /** The worker for a persistent pool's spec, its room following the spec's network and named paths. */
    private Worker forSpec(String specJson) {
        JsonObject spec = JsonParser.parseString(specJson).getAsJsonObject();
        List<String> command = AgentJson.strings(spec.get("command"));
        Map<String, String> env = spec.has("env") ? AgentJson.stringMap(spec.get("env")) : Map.of();
        List<String> named = new ArrayList<>(command);
        named.addAll(env.values());
        sandbox.follow(AgentJson.text(spec, "network"), named, AgentJson.text(spec, "workingDir"));
        return get(command, env, AgentJson.text(spec, "workingDir"));
    }

    /**
     * The worker for a job of {@code tenant}: the one there is, or a new one (in a new dir) when
     * the pool changed or it served another tenant.
     */
    public Worker forTenant(String tenant, List<String> command, Map<String, String> env, String workingDir) {
        String t = tenant == null ? "" : tenant;
        if (worker != null && servedTenant != null && !servedTenant.equals(t)) {
            AgentLog.log("a job of another tenant: the persistent worker starts afresh");
            kill();
            worker = null;
        }
        Worker w = get(command, env, workingDir);
        servedTenant = t;
        return w;
    }

    /** The worker for the pool's command and env: the one there is, or a new one when the pool changed. */
    public Worker get(List<String> command, Map<String, String> env, String workingDir) {
        Map<String, String> all = new HashMap<>(baseEnv);
        all.putAll(env);
        all.put(AgentEnv.PROCESSOR_ID, processorId);
        all.put(AgentEnv.POOL, pool);
        Path dir = sandbox.root().resolve(WORKER_DIR);
        if (sandbox.otherUser()) {
            all.put("HOME", dir.toString());
        }
        List<String> shown = sandbox.hostTmpNow();
        Worker wanted = worker(command, all, dir, workingDir, shown);
        if (worker != null
                && !worker.sameAs(wanted)
                && HostTmp.Parts.of(shown)
                        .hiding()
                        .equals(HostTmp.Parts.of(workerShown).hiding())
                && worker.sameAs(worker(command, all, dir, workingDir, workerShown))) {
            // only an entry that came to the host's /tmp or left it: no reason to lose the worker's
            // warm state (on a busy host it was restarted every few seconds); it hides the same, and
            // a new entry is not linked into a running worker's /tmp
            return worker;
        }
        if (worker == null || !worker.sameAs(wanted)) {
            kill();
            try {
                sandbox.newDir(WORKER_DIR); // the worker's own room, kept across its jobs (its warm state is the point)
            } catch (IOException e) {
                AgentLog.log("could not make the persistent worker's dir %s: %s", dir, e.getMessage());
            }
            worker = wanted;
            workerShown = shown;
        }
        return worker;
    }

    private Worker worker(
            List<String> command, Map<String, String> env, Path dir, String workingDir, List<String> shown) {
        return new Worker(
                        sandbox.wrap(command, dir, workingDir, shown), env, sandbox.directory(dir, workingDir), maxLine)
                .onStart(sandbox::started);
    }

    /** The request line a persistent worker reads for one job: its id, config, args and allowed env. */
    public static String request(String jobId, Run r, List<String> args, Map<String, String> jobEnv) {
        JsonObject req = new JsonObject();
        req.addProperty("id", jobId);
        req.add("config", JsonParser.parseString(r.configJson()));
        req.add("args", AgentJson.GSON.toJsonTree(args));
        req.add("env", AgentJson.GSON.toJsonTree(jobEnv));
        return req.toString();
    }

    public void kill() {
        if (worker != null) {
            worker.kill(true);
        }
    }
}
