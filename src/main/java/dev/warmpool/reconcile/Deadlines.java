package dev.warmpool.reconcile;

import dev.warmpool.policy.PoolSnapshot;
import dev.warmpool.pool.Processor;
import dev.warmpool.protocol.ProcessorState;
import dev.warmpool.protocol.ResetCommand;
import java.util.ArrayList;
import java.util.List;

/**
 * Which processors hold a job past its deadline: the manager's backstop for {@code timeoutSeconds}.
 * A pure function of a snapshot and its instant, table-tested without Redis ({@link Overdues}
 * applies it).
 *
 * <p>The agent ends a job at its timeout itself; that is the fast path, and a healthy agent has
 * reported the end long before the grace runs out (a job that ignores SIGTERM is killed 5 s later).
 * A processor still on the job past its deadline plus the grace has an agent that is stuck (a full
 * heap, a GC death spiral, SIGSTOP) while its heartbeat thread may still beat, or dead before its
 * heartbeat lease ran out: nothing else would end the job, and the pool's queue would stall behind
 * it. The job is timed out and the processor replaced.
 *
 * <p>A job assigned but not started has no deadline yet (the agent's clock starts with the job);
 * its processor must start it within the start timeout, the bound an agent has to come up at all,
 * plus the grace and, in a pool with a {@code resetCommand}, the agent's bound on a reset (the next
 * job waits in the inbox until the reset is done). Past that the processor is replaced and the job
 * goes back to its queue, charged as for a lost processor.
 */
final class Deadlines {
    /** The agent gives a reset command this long before it replaces its processor (agent Lifetime). */
    static final long RESET_BOUND_MILLIS = ResetCommand.TIMEOUT_SECONDS * 1000;

    /** The bounds, in milliseconds: the grace past a job's deadline, and the start timeout. */
    public record Timing(long graceMillis, long startTimeoutMillis) {}

    /**
     * Processor {@code processorId} holds {@code jobId} past its bound: {@code since} and
     * {@code deadline} are the snapshot's (overdue.lua acts only if they still hold).
     */
    public record Overdue(String processorId, String jobId, long since, long deadline, String reason) {}

    private Deadlines() {}

    /** The processors of {@code s} that are past their job's deadline (or start bound) plus the grace at {@code s.now()}. */
    public static List<Overdue> overdue(PoolSnapshot s, Timing t) {
        List<Overdue> out = new ArrayList<>();
        long startBound =
                t.startTimeoutMillis() + t.graceMillis() + (s.spec().resetCommand() == null ? 0 : RESET_BOUND_MILLIS);
        for (Processor p : s.processors()) {
            if (p.state() != ProcessorState.BUSY || p.job() == null) {
                continue;
            }
            if (p.deadlineMillis() > 0) {
                if (s.now() >= p.deadlineMillis() + t.graceMillis()) {
                    out.add(new Overdue(
                            p.id(),
                            p.job(),
                            p.sinceMillis(),
                            p.deadlineMillis(),
                            "timed out: processor " + p.id() + " did not end the job within " + t.graceMillis() / 1000
                                    + " s of its timeout and was replaced"));
                }
            } else if (s.now() >= p.sinceMillis() + startBound) {
                out.add(new Overdue(
                        p.id(),
                        p.job(),
                        p.sinceMillis(),
                        0,
                        "processor " + p.id() + " did not start the job within " + startBound / 1000
                                + " s and was replaced"));
            }
        }
        return out;
    }
}
