package dev.warmpool.pool;

import java.util.List;

/**
 * One consistent read of a pool (one script): spec, state, queue length, processors, Redis time,
 * and the sweeps' demand (the sum of the running sweeps' parallelism).
 */
public record PoolSnapshot(String type, PoolSpec spec, boolean draining, int queued, long now,
        List<Processor> processors, int sweepDemand) {

    public PoolSnapshot(String type, PoolSpec spec, boolean draining, int queued, long now, List<Processor> processors) {
        this(type, spec, draining, queued, now, processors, 0);
    }

    public int count(ProcessorState state) {
        return (int) processors.stream().filter(p -> p.state() == state).count();
    }
}
