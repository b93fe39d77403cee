package dev.warmpool.reconcile;

import dev.warmpool.protocol.script.LostReply;
import dev.warmpool.store.PoolStore;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * Processors whose process the runtime saw end (a child of this manager exited): each is lost at
 * once through lost.lua, its job requeued and charged an attempt as a lost processor's always is,
 * and a pass is asked for to start its replacement. Without this a processor killed within the
 * orphan grace of its start waited for its heartbeat lease (10-15 s). lost.lua is idempotent: a
 * processor that deregistered before it exited (retired, drained, its pool gone), or that a pass
 * found lost first, is {@link LostReply.Gone} and nothing changes; its fencing token goes with it,
 * so a job requeued here can only be finished by the processor that takes it next.
 */
final class Exits {
    private static final Logger LOG = Logger.getLogger(Exits.class);
    private static final Duration CALL = Duration.ofSeconds(10);

    private final PoolStore store;
    private final long retentionSeconds;
    /** Where the script runs: the reconciler's worker, never the thread that reaps processes. */
    private final Executor worker;

    /** Asks for the pool's processors to be started now (and a full pass soon). */
    private final Consumer<String> nudge;

    Exits(PoolStore store, long retentionSeconds, Executor worker, Consumer<String> nudge) {
        this.store = store;
        this.retentionSeconds = retentionSeconds;
        this.worker = worker;
        this.nudge = nudge;
    }

    /** Processor {@code id} of pool {@code type} has no process any more. */
    void gone(String type, String id) {
        try {
            worker.execute(() -> lost(type, id));
        } catch (RejectedExecutionException e) {
            // the manager is stopping: the next manager's passes find the process gone
        }
    }

    void lost(String type, String id) {
        try {
            LostReply reply = store.lost(
                            type,
                            id,
                            Long.MAX_VALUE,
                            "processor " + id + " was lost (its process exited)",
                            retentionSeconds)
                    .await()
                    .atMost(CALL);
            if (reply instanceof LostReply.Lost lost) {
                LOG.warnf(
                        "processor %s of pool %s exited without deregistering; %s",
                        id,
                        type,
                        lost.jobId().isEmpty()
                                ? "it held no job"
                                : "its job " + lost.jobId() + " is now " + lost.jobState());
            }
        } catch (RuntimeException e) {
            // Redis unreachable: a later pass finds the process gone (or its heartbeat stale) and retries
            LOG.warnf("processor %s of pool %s exited; not marked lost yet: %s", id, type, e.getMessage());
        }
        nudge.accept(type);
    }
}
