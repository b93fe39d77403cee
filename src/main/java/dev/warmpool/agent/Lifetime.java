package dev.warmpool.agent;

import com.google.gson.JsonObject;
import dev.warmpool.agent.io.AgentJson;
import dev.warmpool.agent.io.AgentLog;
import dev.warmpool.agent.room.Sandbox;
import dev.warmpool.protocol.ResetCommand;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * How long one processor serves, as its pool says in the spec of the last job it ran:
 * {@code maxJobsPerProcessor}, {@code maxAgeSeconds}, and the {@code resetCommand} run between
 * jobs. Only the agent's loop thread uses it.
 */
final class Lifetime {
    /** How long a reset command may run before it counts as failed. */
    static final long RESET_TIMEOUT_SECONDS = ResetCommand.TIMEOUT_SECONDS;

    private final long bornNanos = System.nanoTime();
    private int jobsRun;
    private int maxJobs;
    /** The pool's maxAgeSeconds (0: none) and resetCommand (null: none), as of the last job's spec. */
    private long maxAgeSeconds;

    private List<String> resetCommand;

    /** Takes the limits of the spec the next job runs under. */
    void follow(JsonObject spec) {
        maxJobs = spec.has("maxJobsPerProcessor")
                        && spec.get("maxJobsPerProcessor").isJsonPrimitive()
                ? spec.get("maxJobsPerProcessor").getAsInt()
                : 0;
        maxAgeSeconds = spec.has("maxAgeSeconds") && spec.get("maxAgeSeconds").isJsonPrimitive()
                ? spec.get("maxAgeSeconds").getAsLong()
                : 0;
        resetCommand = spec.has("resetCommand") && spec.get("resetCommand").isJsonArray()
                ? AgentJson.strings(spec.get("resetCommand"))
                : null;
    }

    /** Counts a job that ended; returns why the processor serves no more (it ran its jobs, or is too old), or null. */
    String jobEnded() {
        jobsRun++;
        if (maxJobs > 0 && jobsRun >= maxJobs) {
            return "the processor ran its " + maxJobs + " jobs (maxJobsPerProcessor)";
        }
        if (maxAgeSeconds > 0 && System.nanoTime() - bornNanos >= maxAgeSeconds * 1_000_000_000L) {
            return "the processor is older than " + maxAgeSeconds + " s (maxAgeSeconds)";
        }
        return null;
    }

    /** Whether the pool has a reset command to run between jobs. */
    boolean resets() {
        return resetCommand != null;
    }

    /**
     * Runs the pool's resetCommand between jobs (free GPU memory, clean scratch), in the pool's
     * environment and working directory, as a job runs: in the processor's room, as the jobs' user
     * (an admin chose the command, but it runs where the last job ran and could have left a trap:
     * never as the agent). Returns null when it succeeded, else what went wrong; its output's tail
     * goes to this agent's log when it fails.
     */
    String reset(Map<String, String> baseEnv, PoolPart pool, Sandbox sandbox) {
        Path dir;
        try {
            dir = sandbox.newJobDir("reset");
        } catch (IOException e) {
            return "could not start (no dir for it: " + e.getMessage() + ")";
        }
        Map<String, String> env = new HashMap<>(baseEnv);
        String workingDir = null;
        if (pool != null) {
            env.putAll(pool.env());
            workingDir = AgentJson.text(pool.spec(), "workingDir");
        }
        if (sandbox.otherUser()) {
            env.put("HOME", dir.toString());
        }
        AtomicReference<JobRun.Outcome> out = new AtomicReference<>();
        JobRun run = new JobRun(
                new JobRun.Launch("reset", "", resetCommand, env, workingDir, RESET_TIMEOUT_SECONDS * 1000, dir),
                sandbox,
                JobRun.Hooks.endOnly(out::set));
        Future<?> running = JobRun.THREADS.submit(run);
        try {
            try {
                running.get(RESET_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                run.kill(JobRun.Forced.TIMED_OUT);
                for (int i = 0; i < 10 && !running.isDone(); i++) {
                    try {
                        running.get(1, TimeUnit.SECONDS);
                    } catch (TimeoutException again) {
                        run.killHarder();
                    }
                }
                return "did not end within " + RESET_TIMEOUT_SECONDS + " s";
            }
        } catch (ExecutionException e) {
            return "could not run (" + e.getCause() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "was interrupted";
        } finally {
            run.cleanUp();
        }
        JobRun.Outcome o = out.get();
        if (o == null || !"SUCCEEDED".equals(o.state())) {
            AgentLog.log("the reset command's output: %s", o == null ? "" : o.logTail());
            return o == null ? "did not end" : "failed (exit code " + o.exitCode() + ")";
        }
        return null;
    }
}
