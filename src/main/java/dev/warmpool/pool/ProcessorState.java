package dev.warmpool.pool;

import java.util.EnumSet;
import java.util.Set;

/**
 * The life of a processor: {@code STARTING -> IDLE <-> BUSY -> DRAINING -> (gone)}; any state
 * goes to LOST (and is removed) when its heartbeat is stale.
 */
public enum ProcessorState {
    STARTING, IDLE, BUSY, DRAINING, LOST;

    public Set<ProcessorState> next() {
        return switch (this) {
            case STARTING -> EnumSet.of(IDLE, BUSY, DRAINING, LOST);
            case IDLE -> EnumSet.of(BUSY, DRAINING, LOST);
            case BUSY -> EnumSet.of(IDLE, BUSY, DRAINING, LOST);
            case DRAINING -> EnumSet.of(LOST);
            case LOST -> EnumSet.noneOf(ProcessorState.class);
        };
    }

    public static ProcessorState parse(String s) {
        return s == null || s.isEmpty() ? LOST : valueOf(s);
    }
}
