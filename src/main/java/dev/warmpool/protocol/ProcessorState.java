package dev.warmpool.protocol;

/**
 * The life of a processor: {@code STARTING -> IDLE <-> BUSY -> DRAINING -> (gone)}; any state
 * goes to LOST (and is removed) when its heartbeat is stale. The scripts alone move processors.
 */
public enum ProcessorState {
    STARTING,
    IDLE,
    BUSY,
    DRAINING,
    LOST;

    public static ProcessorState parse(String s) {
        return s == null || s.isEmpty() ? LOST : valueOf(s);
    }
}
