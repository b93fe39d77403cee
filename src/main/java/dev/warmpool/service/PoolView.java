package dev.warmpool.service;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.warmpool.pool.PoolSnapshot;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.pool.Processor;
import dev.warmpool.protocol.ProcessorState;
import java.util.Comparator;
import java.util.List;

/** A pool as {@code GET /pools/{type}} shows it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PoolView(String type, String state, PoolSpec spec, Status status, List<Processor> processors,
        List<Processor> gangs) {

    /** Counts of processors by state, and of queued jobs. */
    public record Status(int starting, int idle, int busy, int draining, int queued) {
    }

    public static PoolView of(PoolSnapshot s) {
        return new PoolView(s.type(), s.draining() ? "DRAINING" : "ACTIVE", s.spec(),
                new Status(s.count(ProcessorState.STARTING), s.count(ProcessorState.IDLE), s.count(ProcessorState.BUSY),
                        s.count(ProcessorState.DRAINING), s.queued()),
                s.processors().stream().sorted(Comparator.comparing(Processor::id)).toList(),
                s.spec().isGang() ? s.gangs().stream().sorted(Comparator.comparing(Processor::id)).toList() : null);
    }
}
