package dev.warmpool.runtime;

import dev.warmpool.pool.PodTemplate;
import dev.warmpool.pool.PoolSpec;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * Where processors live. The reconciler talks to this interface only; its calls block
 * (process spawn, API calls) and are made from the reconciler's worker thread, never the event loop.
 */
public interface ProcessorRuntime {

    /** A processor as the runtime sees it. */
    record Running(String type, String processorId, long startedMillis, List<String> devices) {
        public Running(String type, String processorId, long startedMillis) {
            this(type, processorId, startedMillis, List.of());
        }
    }

    /** Starts the agent of processor {@code processorId} in the pool of {@code type}. */
    void start(String type, String processorId, PoolSpec spec);

    /** Stops it: a polite signal first (the agent hands back its job), a kill after a grace period. */
    void stop(String type, String processorId);

    /** Every processor of this warmpool that the runtime has. */
    List<Running> list();

    /** The pool is gone from Redis: remove what the runtime keeps for it. */
    default void poolRemoved(String type) {}

    /** Calls {@code changed} when the runtime sees a processor go (so the reconciler need not wait for its tick). */
    default void onChange(Runnable changed) {}

    /**
     * Calls {@code gone} with a processor's pool and id when the runtime knows for certain that its
     * process has ended (a child process it started exited), so that it is handled as lost at once
     * rather than after the orphan grace or its heartbeat lease. Runtimes that only see processes by
     * listing them never call it. It may be called for a processor that ended cleanly (it
     * deregistered first): the handler must be idempotent, as lost.lua is. A runtime that calls it
     * need not also call {@link #onChange}'s listener for that exit.
     */
    default void onGone(BiConsumer<String, String> gone) {}

    /**
     * Why this runtime could not run the pool's command (or a gang role's), checked when the pool
     * is PUT, so that a pool that cannot start is refused with a sentence rather than left with
     * processors that fail every job; empty where the runtime cannot tell (the command lives in an
     * image). {@code field} names the command the problem is in, as the request wrote it.
     */
    default Optional<ResourceLimits.Problem> commandProblem(PoolSpec spec) {
        return Optional.empty();
    }

    /**
     * What this runtime cannot do of a pool's {@code template} (null: the pool gave none), checked
     * when the pool is PUT; the limits every runtime shares are {@link ResourceLimits}'. {@code
     * beside}: the runtimes this manager runs, so that a sentence can point the pool to one of them.
     */
    default Optional<ResourceLimits.Problem> templateProblem(PodTemplate template, Set<String> beside) {
        return Optional.empty();
    }

    /** Once the manager is up: work that makes later processor starts faster (off the caller's thread). */
    default void prepare() {}

    /**
     * The machine's devices (GPUs) that this runtime hands out to processors, one set each; empty
     * where something else counts them (Kubernetes' scheduler).
     */
    default Optional<Devices> devices() {
        return Optional.empty();
    }

    /** The devices processors of a pool of {@code spec} are handed, where this runtime counts them. */
    default Optional<Devices> devices(PoolSpec spec) {
        return devices();
    }

    /** Whether this manager may reconcile (the runtime may elect a leader among managers). */
    default boolean leads() {
        return true;
    }
}
