package dev.warmpool.runtime;

import java.util.List;

/**
 * Where processors live. The reconciler talks to this interface only; its calls block
 * (process spawn, API calls) and are made from the reconciler's worker thread, never the event loop.
 */
public interface ProcessorRuntime {

    /** A processor as the runtime sees it. */
    record Running(String type, String processorId, long startedMillis) {
    }

    /** Starts the agent of processor {@code processorId} in the pool of {@code type}. */
    void start(String type, String processorId);

    /** Stops it: a polite signal first (the agent hands back its job), a kill after a grace period. */
    void stop(String type, String processorId);

    /** Every processor of this warmpool that the runtime has. */
    List<Running> list();
}
