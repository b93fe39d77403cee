package dev.warmpool.policy;

import dev.warmpool.pool.PoolSpec;
import dev.warmpool.pool.Processor;
import dev.warmpool.protocol.ProcessorState;
import java.time.Instant;
import java.util.List;

/**
 * One consistent read of a pool (one script): spec, state, queue length, processors, Redis time,
 * the sweeps' demand (the sum of the running sweeps' parallelism), and in a gang pool its gangs
 * (each as a {@link Processor}: its id, state, job and times), and what its learned keep-alive
 * has learned ({@link Warmth.History}; {@code idleNowMs}: the idle time so far of the processors
 * idle now); {@code runnable}: the queued jobs their tenants' {@code maxRunning} caps let start
 * now, which sizing starts processors for ({@code queued} counts every queued job);
 * {@code startError}: why the last processor lost before it registered was lost (null: none since
 * the pool's last PUT).
 */
public record PoolSnapshot(
        String type,
        PoolSpec spec,
        boolean draining,
        int queued,
        long now,
        List<Processor> processors,
        int sweepDemand,
        List<Processor> gangs,
        Warmth.History warmth,
        long idleNowMs,
        int runnable,
        StartError startError) {

    /** Why a processor of the pool was lost before it registered, and when (Redis's clock). */
    public record StartError(String reason, Instant at) {}

    public PoolSnapshot(
            String type,
            PoolSpec spec,
            boolean draining,
            int queued,
            long now,
            List<Processor> processors,
            int sweepDemand,
            List<Processor> gangs) {
        this(type, spec, draining, queued, now, processors, sweepDemand, gangs, Warmth.History.NONE, 0, queued, null);
    }

    public PoolSnapshot(
            String type, PoolSpec spec, boolean draining, int queued, long now, List<Processor> processors) {
        this(type, spec, draining, queued, now, processors, 0, List.of());
    }

    public PoolSnapshot(
            String type,
            PoolSpec spec,
            boolean draining,
            int queued,
            long now,
            List<Processor> processors,
            int sweepDemand) {
        this(type, spec, draining, queued, now, processors, sweepDemand, List.of());
    }

    /** The same pool with its gangs in the place of its processors: what sizing counts in a gang pool. */
    public PoolSnapshot asGangs() {
        return new PoolSnapshot(
                type, spec, draining, queued, now, gangs, sweepDemand, gangs, warmth, idleNowMs, runnable, startError);
    }

    /** Idle processor time over the pool's life so far: of processors that stopped idling and of those idle now. */
    public long idleProcessorMs() {
        return warmth.idleMs() + idleNowMs;
    }

    /**
     * The start error to show: none once a processor started after it is up (idle, busy or
     * draining), which means the cause is gone; else the last one, if any.
     */
    public StartError currentStartError() {
        if (startError == null) {
            return null;
        }
        boolean upSince = processors.stream()
                .anyMatch(p -> p.state() != ProcessorState.STARTING
                        && p.startedMillis() >= startError.at().toEpochMilli());
        return upSince ? null : startError;
    }

    public int count(ProcessorState state) {
        return (int) processors.stream().filter(p -> p.state() == state).count();
    }
}
