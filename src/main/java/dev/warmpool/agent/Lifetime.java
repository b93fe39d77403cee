package dev.warmpool.agent;

import com.google.gson.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * How long one processor serves, as its pool says in the spec of the last job it ran:
 * {@code maxJobsPerProcessor}, {@code maxAgeSeconds}, and the {@code resetCommand} run between
 * jobs. Only the agent's loop thread uses it.
 */
final class Lifetime {
    /** How long a reset command may run before it counts as failed. */
    static final long RESET_TIMEOUT_SECONDS = 120;

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
     * environment and working directory, its output to this agent's log. Returns null when it
     * succeeded, else what went wrong.
     */
    String reset(Map<String, String> baseEnv, PoolPart pool) {
        ProcessBuilder pb = new ProcessBuilder(resetCommand)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.INHERIT);
        pb.environment().clear();
        pb.environment().putAll(baseEnv);
        if (pool != null) {
            pb.environment().putAll(pool.env());
            String dir = AgentJson.text(pool.spec(), "workingDir");
            if (dir != null) {
                pb.directory(new java.io.File(dir));
            }
        }
        try {
            Process p = pb.start();
            if (!p.waitFor(RESET_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                return "did not end within " + RESET_TIMEOUT_SECONDS + " s";
            }
            return p.exitValue() == 0 ? null : "failed (exit code " + p.exitValue() + ")";
        } catch (java.io.IOException e) {
            return "could not start (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "was interrupted";
        }
    }
}
