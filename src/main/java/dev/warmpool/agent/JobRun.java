package dev.warmpool.agent;

import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import dev.warmpool.agent.io.AgentJson;
import dev.warmpool.agent.io.AgentLog;
import dev.warmpool.agent.io.ResultLimit;
import dev.warmpool.agent.io.Tail;
import dev.warmpool.agent.room.ResidentRoom;
import dev.warmpool.agent.room.RoomLimits;
import dev.warmpool.agent.room.RoomOutput;
import dev.warmpool.agent.room.Sandbox;
import dev.warmpool.agent.worker.Worker;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One job on a background thread, as a child process or as one request to the processor's
 * persistent {@link Worker}: it keeps the last 16 KiB of the output, passes intermediate
 * metrics ({@code WARMPOOL_REPORT {...}} lines, or a worker's report lines) to the agent, reads
 * the metrics the job wrote to {@code WARMPOOL_RESULT} (or the worker's answer), and hands its
 * {@link Outcome} to the agent's loop when the job ends.
 */
final class JobRun implements Runnable {

    /** Why the agent ended a job before its process did. */
    enum Forced {
        NONE,
        CANCELLED,
        TIMED_OUT,
        HANDED_BACK,
        FENCED,
        EARLY_STOPPED
    }

    /** The result file's name in the job's dir ({@code WARMPOOL_RESULT}). */
    static final String RESULT = "result.json";

    /** The prefix of an intermediate-metrics line on a job's output. */
    static final String REPORT_MARKER = "WARMPOOL_REPORT ";

    /** How the job ended. */
    record Outcome(JobRun run, String state, int exitCode, String metrics, String logTail, String error)
            implements AgentEvent {}

    final String jobId;
    final String token;
    private final List<String> command;
    private final Map<String, String> env;
    private final String workingDir;
    final long timeoutMillis;
    final long startedNanos = System.nanoTime();
    /** The job's own dir, removed when it ends; null for a job that never started. */
    final Path dir;

    private final Path resultFile;
    private final Sandbox sandbox;
    private final Consumer<Outcome> onEnd;
    private final BiConsumer<JobRun, String> onReport;
    private final Supplier<LiveLog> liveLog;
    /** The processor's persistent worker the job is sent to, as the JSON line {@code request}; null: a process. */
    private Worker worker;

    private String request;
    private volatile Process process;
    private volatile ResidentRoom room;
    /** The room the job ran in and its output, until {@link #cleanUp} readies the room for the next job. */
    private ResidentRoom ranIn;

    private RoomOutput ranOut;
    private volatile Forced forced = Forced.NONE;
    private volatile long killedAtNanos;
    private int maxResultBytes = ResultLimit.DEFAULT_BYTES;
    /** What goes when the job's room is readied for the next (a sweep driver's way to the API). */
    private AutoCloseable closeAtEnd;

    /**
     * What a job runs: its command (the job's args appended), env and working dir (null: its own
     * dir), its timeout (0: none) and its own dir, made by the sandbox (null: a job that never
     * started). The result file is in that dir.
     */
    record Launch(
            String jobId,
            String token,
            List<String> command,
            Map<String, String> env,
            String workingDir,
            long timeoutMillis,
            Path dir) {}

    /** Where a run's news goes: its end, its intermediate reports, a live log made per run (null: none). */
    record Hooks(Consumer<Outcome> onEnd, BiConsumer<JobRun, String> onReport, Supplier<LiveLog> liveLog) {
        /** Only the end: reports and output go nowhere else. */
        static Hooks endOnly(Consumer<Outcome> onEnd) {
            return new Hooks(onEnd, (run, json) -> {}, () -> null);
        }
    }

    /** A job run as a child process in {@code sandbox}; see {@link #toWorker} for a persistent worker's. */
    JobRun(Launch launch, Sandbox sandbox, Hooks hooks) {
        this.liveLog = hooks.liveLog();
        this.onReport = hooks.onReport();
        this.onEnd = hooks.onEnd();
        this.jobId = launch.jobId();
        this.token = launch.token();
        this.command = launch.command();
        this.env = launch.env();
        this.workingDir = launch.workingDir();
        this.timeoutMillis = launch.timeoutMillis();
        this.dir = launch.dir();
        this.resultFile = dir == null ? null : dir.resolve(RESULT);
        this.sandbox = sandbox;
    }

    /** Sends the job to the processor's persistent {@code worker} as the JSON line {@code request}; set before it runs. */
    JobRun toWorker(Worker worker, String request) {
        this.worker = worker;
        this.request = request;
        return this;
    }

    /** Reads at most {@code bytes} of the job's result file ({@code WARMPOOL_MAX_RESULT_BYTES}); set before it runs. */
    JobRun limitResult(int bytes) {
        this.maxResultBytes = bytes;
        return this;
    }

    /** A job that ended before it could start: {@code error} says why. */
    static Outcome notStarted(String jobId, String token, String error) {
        JobRun run =
                new JobRun(new Launch(jobId, token, List.of(), Map.of(), null, 0, null), null, Hooks.endOnly(o -> {}));
        return new Outcome(run, "FAILED", 127, "{}", "", error);
    }

    /**
     * The agent's threads for jobs and their output readers, kept between jobs: a new thread per
     * job costs about 0.35 ms of CPU here, a tenth of a warm job's budget.
     */
    static final ExecutorService THREADS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "agent-job");
        t.setDaemon(true);
        return t;
    });

    @Override
    public void run() {
        Thread.currentThread().setName("job-" + jobId);
        onEnd.accept(worker != null ? onWorker() : inProcess());
    }

    /**
     * The job's log, opened with a line saying where a large config is: a job that reads only
     * {@code WARMPOOL_CONFIG} finds it unset, and its log then says why and where to look.
     */
    private Tail tail() {
        Tail tail = new Tail(Tail.JOB_BYTES, liveLog.get());
        String file = env.get("WARMPOOL_CONFIG_FILE");
        if (file != null) {
            byte[] note = ("warmpool: this job's config is " + ChildEnv.CONFIG_IN_ENV_MAX / 1024
                            + " KiB or more, so it is in the file $WARMPOOL_CONFIG_FILE (" + file
                            + "), not in $WARMPOOL_CONFIG\n")
                    .getBytes(StandardCharsets.UTF_8);
            tail.append(note, note.length);
        }
        return tail;
    }

    private Outcome onWorker() {
        Tail tail = tail();
        try {
            Worker.Reply reply = worker.call(request, json -> onReport.accept(this, json), tail);
            if (reply == null) {
                // the worker died, or the agent killed it: it starts again for the next job
                int code = worker.exitCode();
                return ended(
                        code,
                        "{}",
                        tail.text(),
                        "the persistent worker exited (code " + code + ") while running the job");
            }
            String error = reply.error();
            boolean ok = "SUCCEEDED".equals(reply.status());
            if (!ok && error == null) {
                error = "the worker answered status '" + reply.status() + "'";
            }
            return ended(ok ? 0 : 1, reply.metrics(), tail.text(), ok ? null : error);
        } catch (IOException e) {
            worker.kill(true);
            return new Outcome(
                    this,
                    "FAILED",
                    127,
                    "{}",
                    tail.text(),
                    "could not reach the persistent worker " + command + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome(this, "FAILED", -1, "{}", "", "the agent was interrupted");
        } finally {
            tail.close();
        }
    }

    private Outcome inProcess() {
        ResidentRoom r = sandbox.room(workingDir);
        if (r == null && sandbox.roomRequired()) {
            // fail closed: in a container only the room's init clears what a job leaves
            return new Outcome(
                    this,
                    "FAILED",
                    125,
                    "{}",
                    "",
                    "the processor's room could not be set up clean; the job did not run, and a fresh processor"
                            + " replaces this one");
        }
        return r != null ? inRoom(r) : inOwnProcess();
    }

    /** The job started in the processor's resident room: its output ends when all it started is gone. */
    private Outcome inRoom(ResidentRoom r) {
        Tail out = tail();
        RoomOutput o = null;
        try {
            o = r.launch(command, env, workingDir != null ? workingDir : dir.toString());
            room = r;
            if (forced != Forced.NONE) {
                r.signal(false); // cancelled while it was being started
            }
            out.readAll(o, REPORT_MARKER, json -> onReport.accept(this, json));
            int exit = o.exitCode();
            if (exit == ResidentRoom.ROOM_ENDED) {
                return new Outcome(
                        this,
                        "FAILED",
                        -1,
                        "{}",
                        out.text(),
                        "the job's sandbox ended while the job ran (the next job gets a new one)");
            }
            return outcome(exit, out.text());
        } catch (IOException e) {
            return new Outcome(this, "FAILED", 127, "{}", "", "could not start " + command + ": " + e.getMessage());
        } finally {
            room = null;
            if (o != null) {
                ranIn = r; // swept in cleanUp, before the next job
                ranOut = o;
            }
            out.close();
        }
    }

    private Outcome inOwnProcess() {
        Outcome outcome;
        Tail tail = null;
        try {
            ProcessBuilder pb = new ProcessBuilder(sandbox.wrap(command, dir, workingDir))
                    .redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .directory(sandbox.directory(dir, workingDir));
            pb.environment().clear(); // from scratch: the agent's own environment is not the job's
            pb.environment().putAll(env);
            process = pb.start();
            RoomLimits.processor().apply(process.pid()); // what it forked before this is moved with it
            sandbox.started(process);
            Tail out = tail();
            tail = out;
            Future<?> reader = THREADS.submit(
                    () -> out.readAll(process.getInputStream(), REPORT_MARKER, json -> onReport.accept(this, json)));
            int exit = process.waitFor();
            // what the job left running dies now: nothing it started may write the next job's result
            sandbox.killSession(process.pid());
            // a background child of the job may hold the output open: give it a second, then move on
            try {
                reader.get(1, TimeUnit.SECONDS);
            } catch (TimeoutException | ExecutionException e) {
                // what was read so far is the tail; closing the stream ends the reader
            }
            process.getInputStream().close();
            outcome = outcome(exit, out.text());
        } catch (IOException e) {
            outcome = new Outcome(this, "FAILED", 127, "{}", "", "could not start " + command + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            outcome = new Outcome(this, "FAILED", -1, "{}", "", "the agent was interrupted");
        } finally {
            if (tail != null) {
                tail.close();
            }
        }
        return outcome;
    }

    private Outcome outcome(int exit, String tail) {
        Integer jobUser = sandbox.uid();
        ResultFile.Read read = ResultFile.read(
                resultFile,
                dir.resolveSibling(dir.getFileName() + "." + RESULT), // jobs/: the agent's alone
                jobUser != null ? jobUser : ResultFile.AGENT_UID,
                maxResultBytes);
        String metrics = "{}";
        String error = read.error();
        if (read.text() != null) {
            try {
                JsonElement parsed = JsonParser.parseString(read.text());
                if (parsed.isJsonObject()) {
                    metrics = AgentJson.finite(parsed); // NaN, Infinity: the strings, in one form
                } else {
                    error = "the result file (WARMPOOL_RESULT) does not hold a JSON object";
                }
            } catch (RuntimeException e) {
                error = "the result file (WARMPOOL_RESULT) is not JSON: " + e.getMessage();
            }
        }
        return ended(exit, metrics, tail, error);
    }

    /**
     * Readies the room for the next job once this one's end is recorded: what the job left in the
     * resident room's /tmp and /dev/shm goes (a room not proven clean is replaced), and so does the
     * job's dir (a large config's file included). Whoever ran the job calls it before the next one
     * starts; the agent does so after the finish, so a client waiting for the end does not wait for this.
     */
    void cleanUp() {
        AutoCloseable c = closeAtEnd;
        closeAtEnd = null;
        if (c != null) {
            try {
                c.close();
            } catch (Exception e) {
                AgentLog.log("job %s: %s", jobId, e.getMessage());
            }
        }
        ResidentRoom r = ranIn;
        RoomOutput o = ranOut;
        ranIn = null;
        ranOut = null;
        if (r != null) {
            r.afterJob(o);
        }
        if (dir != null) {
            Sandbox.remove(dir);
        }
    }

    /** Closes {@code c} when the job is cleaned up ({@link #cleanUp}). */
    void closeAtEnd(AutoCloseable c) {
        this.closeAtEnd = c;
    }

    /** The outcome of a job whose process (or worker call) ended with {@code exit}. */
    private Outcome ended(int exit, String metrics, String tail, String error) {
        return switch (forced) {
            case CANCELLED -> new Outcome(this, "CANCELLED", exit, metrics, tail, "cancelled by request");
            case TIMED_OUT ->
                new Outcome(this, "TIMED_OUT", exit, metrics, tail, "timed out after " + timeoutMillis / 1000 + " s");
            case HANDED_BACK -> new Outcome(this, "HANDED_BACK", exit, metrics, tail, "the processor stopped");
            case FENCED -> new Outcome(this, "FENCED", exit, metrics, tail, "the job was given to another processor");
            case EARLY_STOPPED -> new Outcome(this, "EARLY_STOPPED", exit, metrics, tail, "stopped by the median rule");
            case NONE ->
                exit == 0 && error == null
                        ? new Outcome(this, "SUCCEEDED", 0, metrics, tail, null)
                        : new Outcome(this, "FAILED", exit, metrics, tail, error != null ? error : "exit code " + exit);
        };
    }

    /** Ends the job's process tree: politely first; {@link #killHarder()} follows if it lingers. */
    void kill(Forced why) {
        if (forced == Forced.NONE) {
            forced = why;
            killedAtNanos = System.nanoTime();
            if (worker != null) {
                worker.kill(false);
                return;
            }
            ResidentRoom r = room;
            if (r != null) {
                r.signal(false);
                return;
            }
            Process p = process;
            if (p != null) {
                p.descendants().forEach(ProcessHandle::destroy);
                p.destroy();
            }
        }
    }

    /** Kills for good a process that ignored the polite signal for 5 s. */
    void killHarder() {
        if (worker != null) {
            if (forced != Forced.NONE && worker.alive() && System.nanoTime() - killedAtNanos > 5_000_000_000L) {
                worker.kill(true);
            }
            return;
        }
        ResidentRoom r = room;
        if (r != null && forced != Forced.NONE && System.nanoTime() - killedAtNanos > 5_000_000_000L) {
            r.signal(true);
            return;
        }
        Process p = process;
        if (forced != Forced.NONE && p != null && p.isAlive() && System.nanoTime() - killedAtNanos > 5_000_000_000L) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    boolean overdue() {
        return timeoutMillis > 0 && System.nanoTime() - startedNanos > timeoutMillis * 1_000_000L;
    }

    Forced forced() {
        return forced;
    }
}
