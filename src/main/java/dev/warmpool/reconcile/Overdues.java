package dev.warmpool.reconcile;

import dev.warmpool.policy.PoolSnapshot;
import dev.warmpool.protocol.script.OverdueReply;
import dev.warmpool.runtime.ProcessorRuntime;
import dev.warmpool.store.PoolStore;
import java.time.Duration;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * Applies {@link Deadlines} to one pool's snapshot: each overdue processor's job is ended (or
 * requeued) and the processor removed in one script (overdue.lua), then its process is stopped
 * and its pool nudged, so its replacement starts at once rather than at the next pass. The script
 * comes first: a processor that let go of its job since the snapshot keeps running.
 */
final class Overdues {
    private static final Logger LOG = Logger.getLogger(Overdues.class);
    private static final Duration CALL = Duration.ofSeconds(10);

    private final PoolStore store;
    private final ProcessorRuntime runtime;
    private final Deadlines.Timing timing;
    private final long retentionSeconds;
    /** Asks for the pool's processors to be started now (and a full pass soon). */
    private final Consumer<String> nudge;

    Overdues(
            PoolStore store,
            ProcessorRuntime runtime,
            Deadlines.Timing timing,
            long retentionSeconds,
            Consumer<String> nudge) {
        this.store = store;
        this.runtime = runtime;
        this.timing = timing;
        this.retentionSeconds = retentionSeconds;
        this.nudge = nudge;
    }

    /** Returns how many processors were replaced. Blocks: the reconciler's worker only. */
    int apply(PoolSnapshot s) {
        int n = 0;
        for (Deadlines.Overdue o : Deadlines.overdue(s, timing)) {
            OverdueReply reply = store.overdue(
                            s.type(), o.processorId(), o.jobId(), o.since(), o.deadline(), o.reason(), retentionSeconds)
                    .await()
                    .atMost(CALL);
            if (reply instanceof OverdueReply.Replaced r) {
                LOG.warnf("%s; its job %s is now %s", o.reason(), o.jobId(), r.jobState());
                runtime.stop(s.type(), o.processorId());
                n++;
            }
        }
        if (n > 0) {
            nudge.accept(s.type());
        }
        return n;
    }
}
