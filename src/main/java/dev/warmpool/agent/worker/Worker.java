package dev.warmpool.agent.worker;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.warmpool.agent.io.AgentJson;
import dev.warmpool.agent.io.AgentLog;
import dev.warmpool.agent.io.ResultLimit;
import dev.warmpool.agent.io.Tail;
import dev.warmpool.agent.room.RoomLimits;
import dev.warmpool.agent.room.Sandbox;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A persistent worker: the pool's command, started once and kept up across jobs, so that its
 * interpreter and whatever it imported and loaded stay warm. The protocol is JSON lines: the
 * agent writes one request per job on the worker's stdin,
 * {@code {"id": ..., "config": {...}, "args": [...], "env": {...}}}, and the worker answers on
 * its stdout with any number of {@code {"report": {"step": N, ...}}} lines and one
 * {@code {"status": "SUCCEEDED"|"FAILED", "metrics": {...}, "error": "..."}}. Other stdout lines,
 * and all of stderr, are the job's log. A worker that exits is started again for the next job, and
 * so is one that prints a stdout line longer than the bound ({@link WorkerLines}): the job fails.
 */
public final class Worker {
    /** The worker's answer to one job. */
    public record Reply(String status, String metrics, String error) {}

    private final List<String> command;
    private final Map<String, String> env;
    private final File workingDir;
    private volatile Process process;
    private volatile boolean killed;
    private final int maxLine;
    private volatile WorkerLines lines;
    private volatile Thread errReader;
    private volatile Tail log = new Tail(Tail.JOB_BYTES);
    private volatile Consumer<Process> started = p -> {};

    Worker(List<String> command, Map<String, String> env, File workingDir) {
        this(command, env, workingDir, ResultLimit.DEFAULT_BYTES);
    }

    /** A worker whose stdout lines may be at most {@code maxLine} bytes long (its answer holds the job's metrics). */
    Worker(List<String> command, Map<String, String> env, File workingDir, int maxLine) {
        this.maxLine = maxLine;
        this.command = List.copyOf(command);
        this.env = Map.copyOf(env);
        this.workingDir = workingDir;
    }

    /** {@code hook} is told of each process started (its room's outbound network, see {@link Sandbox#started}). */
    Worker onStart(Consumer<Process> hook) {
        started = hook;
        return this;
    }

    /** True when both run the same command in the same environment: a changed pool gets a new worker. */
    boolean sameAs(Worker other) {
        return command.equals(other.command) && env.equals(other.env) && Objects.equals(workingDir, other.workingDir);
    }

    /** Starts the worker unless it is up and serving; one that was killed or closed its output is replaced. */
    synchronized void ensureStarted() throws IOException, InterruptedException {
        Process old = process;
        if (old != null && old.isAlive() && !killed && !lines.ended()) {
            return;
        }
        if (lines != null) {
            lines.close();
        }
        if (old != null && old.isAlive()) {
            old.descendants().forEach(ProcessHandle::destroyForcibly);
            old.destroyForcibly();
            old.waitFor();
        }
        killed = false;
        ProcessBuilder pb = new ProcessBuilder(command);
        if (workingDir != null) {
            pb.directory(workingDir);
        }
        pb.environment().clear(); // from scratch: the agent's own environment is not the worker's
        pb.environment().putAll(env);
        pb.environment().put("WARMPOOL_WORKER", "persistent");
        Process p = launch(pb);
        RoomLimits.processor().apply(p.pid()); // the pool's bounds hold for its persistent worker too
        started.accept(p);
        WorkerLines q = new WorkerLines(maxLine);
        Thread out = new Thread(() -> q.read(p.getInputStream()), "worker-stdout");
        out.setDaemon(true);
        out.start();
        Thread err = new Thread(() -> copy(p.getErrorStream()), "worker-stderr");
        err.setDaemon(true);
        err.start();
        lines = q;
        errReader = err;
        process = p;
        AgentLog.log("started persistent worker %s (pid %d)", command, p.pid());
    }

    /**
     * The thread that starts every worker, alive as long as the agent: the sandbox starts a worker
     * with {@code bwrap --die-with-parent}, and Linux sends that death signal when the thread that
     * forked the process ends, not the process. Started from a job's pooled thread (which ends after
     * a minute idle) or a one-off thread, a warm worker was killed, and the next job paid its import again.
     */
    private static final ExecutorService LAUNCHER = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "worker-launcher");
        t.setDaemon(true);
        return t;
    });

    private static Process launch(ProcessBuilder pb) throws IOException, InterruptedException {
        try {
            return LAUNCHER.submit(pb::start).get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException("could not start the worker: " + e.getCause(), e.getCause());
        }
    }

    /**
     * Runs one job: sends its request and reads until the worker's answer, handing reports to
     * {@code onReport}. A worker that dies (or is killed) ends the call with {@code null}.
     */
    public Reply call(String request, Consumer<String> onReport, Tail tail) throws IOException, InterruptedException {
        ensureStarted();
        log = tail;
        Process p = process;
        WorkerLines q = lines;
        OutputStream in = p.getOutputStream();
        in.write((request + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
        while (true) {
            String line = q.take();
            if (line == WorkerLines.EOF) {
                return null; // later calls see the end too, until the worker is started again
            }
            if (line == WorkerLines.TOO_LONG) {
                kill(true); // what follows on its output cannot be told apart from the answer: a new worker
                return new Reply("FAILED", "{}", tooLong(q.maxLine()));
            }
            JsonObject message = object(line);
            if (message != null && message.has("status")) {
                String status = message.get("status").isJsonPrimitive()
                        ? message.get("status").getAsString()
                        : "";
                JsonElement metrics = message.get("metrics");
                JsonElement error = message.get("error");
                return new Reply(
                        status,
                        metrics != null && metrics.isJsonObject() ? AgentJson.finite(metrics) : "{}",
                        error != null && error.isJsonPrimitive() ? error.getAsString() : null);
            }
            if (message != null
                    && message.has("report")
                    && message.get("report").isJsonObject()) {
                onReport.accept(AgentJson.finite(message.get("report")));
            } else {
                byte[] b = (line + "\n").getBytes(StandardCharsets.UTF_8);
                tail.append(b, b.length);
            }
        }
    }

    /**
     * The worker's exit code once it has exited (its output has ended: it is going), or -1 if it
     * lingers 5 s; by then its stderr has been read to the end into the job's log (up to 1 s more,
     * as a child of the worker may hold it open): a dying worker's last words are on stderr, and
     * its stdout can end before they are read.
     */
    public int exitCode() throws InterruptedException {
        Process p = process;
        int code = p != null && p.waitFor(5, TimeUnit.SECONDS) ? p.exitValue() : -1;
        Thread err = errReader;
        if (err != null) {
            err.join(1000);
        }
        return code;
    }

    /** How a worker ended: its exit code and the end of what it printed on stderr. */
    record Exit(int code, String stderr) {}

    /**
     * How the worker ended, if it has ended within {@code millis} (it is waited for that long at
     * most); null while it is up. Its stderr is read to the end first (up to 1 s more).
     */
    Exit endedWithin(long millis) throws InterruptedException {
        Process p = process;
        if (p == null || !p.waitFor(millis, TimeUnit.MILLISECONDS)) {
            return null;
        }
        Thread err = errReader;
        if (err != null) {
            err.join(1000);
        }
        return new Exit(p.exitValue(), log.text());
    }

    /** Ends the worker and its children (a cancelled, timed-out or stopped job): politely first. */
    public void kill(boolean hard) {
        killed = true;
        Process p = process;
        if (p != null) {
            if (hard) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            } else {
                p.descendants().forEach(ProcessHandle::destroy);
                p.destroy();
            }
        }
    }

    public boolean alive() {
        Process p = process;
        return p != null && p.isAlive();
    }

    private static JsonObject object(String line) {
        String t = line.trim();
        if (!t.startsWith("{")) {
            return null;
        }
        try {
            JsonElement e = JsonParser.parseString(t);
            return e.isJsonObject() ? e.getAsJsonObject() : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The sentence for a stdout line over {@code maxLine} bytes. */
    static String tooLong(int maxLine) {
        return "the persistent worker printed a line longer than " + maxLine + " bytes, the limit ("
                + ResultLimit.SETTING + "); it is started again for the next job";
    }

    private void copy(InputStream stream) {
        byte[] buf = new byte[8192];
        try {
            int n;
            while ((n = stream.read(buf)) > 0) {
                log.append(buf, n);
            }
        } catch (IOException e) {
            // the worker is gone
        }
    }
}
