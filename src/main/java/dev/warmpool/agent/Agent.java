package dev.warmpool.agent;

import static dev.warmpool.agent.io.AgentLog.log;

import dev.warmpool.agent.room.Sandbox;
import dev.warmpool.agent.worker.WorkerSlot;
import dev.warmpool.protocol.AgentEnv;
import dev.warmpool.protocol.script.FinishReply;
import dev.warmpool.protocol.script.HeartbeatReply;
import dev.warmpool.protocol.script.RegisterReply;
import dev.warmpool.protocol.script.Run;
import dev.warmpool.protocol.script.StartReply;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The program inside every warm processor. It registers its processor, heartbeats, waits on its
 * inbox, marks a job running (only while the assignment is still its own), runs it as a child
 * process on a background thread, records the result and flips back to idle or takes the next
 * queued job, all through the same Lua scripts as the manager ({@link ProcessorScripts}). One
 * loop owns the state; the inbox reader, the heartbeat and the job thread only post events to it.
 * {@link JobStarter} makes each job ready to run, {@link Lifetime} says when the processor has
 * served its time.
 *
 * <p>On SIGTERM it takes no more work, lets a running job finish within the grace period (else
 * hands it back to the queue), and deregisters.
 */
public final class Agent {
    private final AgentConfig config;
    private final RedisLink redis;
    private final ProcessorScripts scripts;
    private final JobStarter starter;
    private final Lifetime lifetime = new Lifetime();
    private final BlockingQueue<AgentEvent> events = new LinkedBlockingQueue<>();
    private final CountDownLatch done = new CountDownLatch(1);
    /** Each job's room: its own dir and session, sandboxed where the runtime asks (see {@link Sandbox}). */
    private final Sandbox sandbox;

    private final EventSink sink;
    private volatile JobRun current;
    private final WorkerSlot workers;
    /** How long a stopping agent waits for an unreachable Redis to record its end. */
    static final long STOP_WAIT_NANOS = 1_500_000_000L;

    private boolean retiring;
    private boolean stopping;
    private boolean unknown;
    private long orphanSince;
    private long stopDeadline;
    private volatile boolean running = true;
    /** What every job's environment starts from (see {@link ChildEnv}): never the agent's own. */
    private final Map<String, String> baseEnv;

    Agent(AgentConfig config) throws IOException {
        this.config = config;
        this.redis = new RedisLink(config.redisUrl(), config.redisCertificate(), config.pool(), config.processorId());
        this.sandbox = Sandbox.fromEnv(System.getenv(), AgentDirs.newRoot(config.processorId()));
        this.sink = EventSink.fromEnv(config.pool(), config.processorId());
        this.baseEnv = sandbox.forJobUser(ChildEnv.base(System.getenv()));
        this.workers = new WorkerSlot(baseEnv, config.processorId(), config.pool(), sandbox, config.maxResultBytes());
        this.scripts = new ProcessorScripts(config, redis, GangEnv.address());
        this.starter = new JobStarter(
                config, redis, sandbox, baseEnv, workers, new Reporter(redis, config), events::add, lifetime);
    }

    public static void main(String[] args) throws Exception {
        long t0 = ProcessAge.startMillis();
        AgentConfig config = AgentConfig.fromEnv(System.getenv());
        Agent agent = new Agent(config);
        Runtime.getRuntime().addShutdownHook(new Thread(agent::onSignal, "agent-stop"));
        int code = agent.run(t0);
        System.exit(code);
    }

    int run(long jvmStartMillis) {
        if (AgentEnv.CLASS_DATA_PROCESSOR.equals(config.processorId())) {
            // the class-data run serves no job: it does not outlive a Redis (and a manager) gone
            redis.giveUpAt(System.nanoTime() + TimeUnit.SECONDS.toNanos(AgentEnv.CLASS_DATA_WAIT_SECONDS));
        }
        String cannotServe = tryWorker();
        if (cannotServe != null) {
            boolean recorded = scripts.startFailed(cannotServe);
            log(
                    "processor %s of pool %s cannot serve, so it does not register%s: %s",
                    config.processorId(), config.pool(), recorded ? "" : " (it was no longer starting)", cannotServe);
            workers.kill();
            sandbox.close();
            done.countDown();
            return 1;
        }
        RegisterReply reg;
        try {
            reg = scripts.register();
        } catch (RedisLink.GaveUp e) {
            log("processor %s of pool %s ends: %s", config.processorId(), config.pool(), e.getMessage());
            workers.kill();
            sandbox.close();
            done.countDown();
            return 1;
        }
        if (!(reg instanceof RegisterReply.Registered registered)) {
            log(
                    reg instanceof RegisterReply.NoPool
                            ? "pool %s does not exist; exiting"
                            : "pool %s is a gang pool that does not know this member; exiting",
                    config.pool());
            sandbox.close();
            done.countDown();
            return 0;
        }
        log(
                "processor %s of pool %s registered as %s, %d ms after JVM start",
                config.processorId(), config.pool(), registered.state(), System.currentTimeMillis() - jvmStartMillis);
        startBackground();
        workers.warmUp(registered.specJson());
        try {
            loop();
        } finally {
            running = false;
            workers.kill();
            sandbox.close();
            done.countDown();
        }
        return 0;
    }

    /**
     * A persistent pool's worker, started and watched before the processor registers (see
     * {@link WorkerSlot#startNow}): why the processor cannot serve, or null (it can, or the pool
     * is of another kind, or its spec could not be read: the register script has the last word).
     */
    private String tryWorker() {
        String spec = redis.poolSpec();
        if (spec == null) {
            return null;
        }
        try {
            return workers.startNow(spec);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private void startBackground() {
        Thread inbox = new Thread(this::readInbox, "agent-inbox");
        inbox.setDaemon(true);
        inbox.start();
        ScheduledExecutorService beat = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "agent-heartbeat");
            t.setDaemon(true);
            return t;
        });
        beat.scheduleWithFixedDelay(
                this::heartbeat, config.heartbeatMillis(), config.heartbeatMillis(), TimeUnit.MILLISECONDS);
    }

    private void loop() {
        while (true) {
            AgentEvent ev;
            try {
                ev = events.poll(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (ev != null && on(ev)) {
                return;
            }
            watch();
        }
    }

    /** Acts on one event; true when the agent is done. */
    private boolean on(AgentEvent ev) {
        if (ev instanceof AgentEvent.Message m) {
            return onMessage(m.text());
        }
        if (ev instanceof JobRun.Outcome outcome) {
            return onEnd(outcome);
        }
        if (ev instanceof AgentEvent.Beat beat) {
            return onBeat(beat);
        }
        return onStop();
    }

    private boolean onStop() {
        stopping = true;
        stopDeadline = System.nanoTime() + config.stopGraceSeconds() * 1_000_000_000L;
        // with Redis gone, an idle agent ends within about a second and a half; a busy one after its job's grace
        redis.giveUpAt((current == null ? System.nanoTime() : stopDeadline) + STOP_WAIT_NANOS);
        if (current == null) {
            deregister("the processor stopped");
            return true;
        }
        log("stopping: letting job %s finish within %d s", current.jobId, config.stopGraceSeconds());
        return false;
    }

    /**
     * Acts on what the heartbeat learned. FENCED: the job was given to another processor, so this
     * copy stops. UNKNOWN (Redis lost the processor: it was declared lost, or Redis lost its
     * data): stop a job that is no longer ours, then register again; a pool that is gone is
     * waited for (the reconciler re-creates pools from config) for a while, then the agent exits.
     * Returns true when the agent is done.
     */
    private boolean onBeat(AgentEvent.Beat beat) {
        // a heartbeat sent for a job that has just ended, racing the finish that handed this
        // processor its next job, comes back FENCED: that says nothing about the next job
        if (beat.reply() instanceof HeartbeatReply.Fenced
                && current != null
                && current.jobId.equals(beat.jobId())
                && current.token.equals(beat.token())) {
            log("job %s was handed to another processor; stopping this copy", current.jobId);
            current.kill(JobRun.Forced.FENCED);
        } else if (beat.reply() instanceof HeartbeatReply.Unknown) {
            unknown = true;
            if (current != null) {
                log("Redis no longer knows this processor; stopping job %s", current.jobId);
                current.kill(JobRun.Forced.FENCED);
            } else {
                return registerAgain();
            }
        }
        return false;
    }

    /** Registers after Redis forgot this processor; returns true when the agent should give up. */
    private boolean registerAgain() {
        RegisterReply reg = scripts.register();
        if (reg instanceof RegisterReply.NoGang) {
            log("the gang of member %s is gone; exiting", config.processorId());
            return true;
        }
        if (reg instanceof RegisterReply.NoPool) {
            if (orphanSince == 0) {
                orphanSince = System.nanoTime();
            }
            if (System.nanoTime() - orphanSince > config.orphanSeconds() * 1_000_000_000L) {
                log("pool %s has been gone for %d s; exiting", config.pool(), config.orphanSeconds());
                return true;
            }
            return false;
        }
        unknown = false;
        orphanSince = 0;
        log("registered again (Redis did not know this processor): %s", ((RegisterReply.Registered) reg).state());
        return false;
    }

    /** Checks the job thread: its timeout, a kill that did not take, the stop grace period. */
    private void watch() {
        if (current == null) {
            return;
        }
        if (current.overdue()) {
            current.kill(JobRun.Forced.TIMED_OUT);
        }
        if (stopping && System.nanoTime() > stopDeadline) {
            current.kill(JobRun.Forced.HANDED_BACK);
        }
        current.killHarder();
    }

    /** Returns true when the agent is done. */
    private boolean onMessage(String message) {
        String[] m = message.split(" ");
        switch (m[0]) {
            case "job" -> {
                if (current == null && !stopping) {
                    start(m[1], m[2]);
                }
            }
            case "cancel" -> {
                if (current != null && current.jobId.equals(m[1]) && current.token.equals(m[2])) {
                    log("cancelling job %s", m[1]);
                    current.kill(JobRun.Forced.CANCELLED);
                }
            }
            case "retire" -> {
                retiring = true;
                if (current == null) {
                    deregister("the processor was retired");
                    return true;
                }
            }
            default -> log("ignoring unknown inbox message '%s'", message);
        }
        return false;
    }

    private void start(String jobId, String token) {
        StartReply reply = scripts.start(jobId, token);
        if (reply instanceof StartReply.Stale stale) {
            log("not running job %s: %s", jobId, stale.reason());
            return;
        }
        run(jobId, token, ((StartReply.Running) reply).run());
    }

    /** Runs a job that Redis has marked running on this processor. */
    private void run(String jobId, String token, Run r) {
        JobStarter.Started started = starter.prepare(jobId, token, r);
        if (started == null) {
            return;
        }
        current = started.run();
        if (started.noop()) {
            events.add(new JobRun.Outcome(current, "SUCCEEDED", 0, "{}", "", null));
            return;
        }
        JobRun.THREADS.execute(current);
    }

    /** What the end of a job leads to: the agent is done, or the next job the finish handed over (null: none). */
    private record AfterEnd(boolean done, FinishReply.Done next) {}

    private static final AfterEnd GO_ON = new AfterEnd(false, null);
    private static final AfterEnd DONE = new AfterEnd(true, null);

    /**
     * Records the outcome, then readies the room for another job ({@link JobRun#cleanUp}: the
     * job's dir, its /tmp and /dev/shm files go) and runs the next job the finish handed over:
     * the end is recorded first, so a client waiting for it does not wait for the clean-up, and
     * no job starts before the clean-up is done. Returns true when the agent is done (stopping or retired).
     */
    private boolean onEnd(JobRun.Outcome o) {
        current = null;
        AfterEnd after;
        try {
            after = record(o);
        } finally {
            o.run().cleanUp();
        }
        if (after.next() != null) {
            run(after.next().nextJob(), after.next().nextToken(), after.next().next());
        }
        return after.done();
    }

    private AfterEnd record(JobRun.Outcome o) {
        if (o.run().forced() == JobRun.Forced.HANDED_BACK) {
            deregister("the processor stopped before the job ended");
            return DONE;
        }
        if (o.run().forced() == JobRun.Forced.FENCED) {
            // the assignment moved on: nothing to report; a forgotten processor registers again
            return unknown && registerAgain() ? DONE : GO_ON;
        }
        String served = lifetime.jobEnded(); // why the processor serves no more, or null
        if (served == null && sandbox.roomLost()) {
            served = "its room could not be proven clean (its init ended); a fresh container replaces it";
        }
        boolean last = stopping || retiring || served != null;
        boolean reset = !last && lifetime.resets();
        // not stopping, the reply may hand over the next queued job, already marked running; with a
        // reset command it may not: the next job waits in the inbox until the reset is done
        FinishReply reply;
        try {
            reply = scripts.finish(o, last, reset);
        } catch (RedisLink.GaveUp e) {
            log("job %s %s, not recorded (%s): the reconciler requeues it", o.run().jobId, o.state(), e.getMessage());
            return DONE;
        }
        boolean stale = reply instanceof FinishReply.Stale;
        // concatenated, not formatted: String.format took a fifth of the agent's CPU in a burst
        log("job " + o.run().jobId + " " + o.state() + " (exit " + o.exitCode() + ")"
                + (stale ? ", but the assignment had moved on: " + ((FinishReply.Stale) reply).reason() : ""));
        if (!stale && sink != null) {
            sink.finished(o.run().jobId, o.run().token, config.pool(), o.state(), o.exitCode(), o.metrics(), o.error());
        }
        if (last) {
            deregister(served != null ? served : "the processor stopped");
            return DONE;
        }
        if (reset) {
            String failed = lifetime.reset(baseEnv, starter.poolPart(), sandbox);
            if (failed != null) {
                // not reused: a job handed to it meanwhile goes back to the queue, and a fresh processor replaces it
                deregister("the reset command " + failed + "; the processor is not reused");
                return DONE;
            }
        }
        return reply instanceof FinishReply.Done done && done.next() != null ? new AfterEnd(false, done) : GO_ON;
    }

    private void deregister(String reason) {
        scripts.deregister(reason);
    }

    private void readInbox() {
        while (running) {
            try {
                String message = redis.next(1.0);
                if (message != null) {
                    events.add(new AgentEvent.Message(message));
                }
            } catch (RuntimeException e) {
                pause(e);
            }
        }
    }

    private void heartbeat() {
        JobRun run = current;
        try {
            String jobId = run == null ? "" : run.jobId;
            String token = run == null ? "" : run.token;
            HeartbeatReply reply = scripts.heartbeat(jobId, token);
            if (!(reply instanceof HeartbeatReply.Alive)) {
                events.add(new AgentEvent.Beat(reply, jobId, token));
            }
        } catch (RuntimeException e) {
            log("heartbeat failed: %s", e.getMessage());
        }
    }

    private void onSignal() {
        if (done.getCount() == 0) {
            return;
        }
        events.add(new AgentEvent.Stop());
        try {
            done.await(config.stopGraceSeconds() + 10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void pause(RuntimeException e) {
        log("redis unavailable (%s); retrying", e.getMessage());
        try {
            Thread.sleep(500); // back off between reconnect attempts; this is the agent, not a test
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
    }
}
