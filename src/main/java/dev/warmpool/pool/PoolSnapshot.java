package dev.warmpool.pool;

import java.util.List;

/** One consistent read of a pool (one script): spec, state, queue length, processors, Redis time. */
public record PoolSnapshot(String type, PoolSpec spec, boolean draining, int queued, long now,
        List<Processor> processors) {

    public int count(ProcessorState state) {
        return (int) processors.stream().filter(p -> p.state() == state).count();
    }
}
