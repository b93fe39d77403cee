package dev.warmpool.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.warmpool.pool.Processor;
import dev.warmpool.protocol.ProcessorState;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** What a pool's view says of its processors' start: the last start error, until a processor started after it is up. */
@Tag("unit")
class PoolSnapshotTests {
    static final long NOW = SizingPolicyTests.NOW;
    static final PoolSnapshot.StartError NO_IMAGE =
            new PoolSnapshot.StartError("could not start: no such image", Instant.ofEpochMilli(NOW - 5_000));

    static PoolSnapshot with(PoolSnapshot.StartError error, Processor... ps) {
        PoolSnapshot s = SizingPolicyTests.pool(1, 4, 300, 0, false, ps);
        return new PoolSnapshot(
                s.type(), s.spec(), false, 0, NOW, List.of(ps), 0, List.of(), Warmth.History.NONE, 0, 0, error);
    }

    static Processor started(String id, ProcessorState state, long startedMillis) {
        return new Processor(id, state, null, startedMillis, NOW, startedMillis);
    }

    @Test
    void theStartErrorShowsUntilAProcessorStartedAfterItIsUp() {
        assertNull(with(null).currentStartError(), "none recorded");
        assertEquals(NO_IMAGE, with(NO_IMAGE).currentStartError(), "no processor at all");
        assertEquals(
                NO_IMAGE,
                with(NO_IMAGE, started("old", ProcessorState.IDLE, NOW - 60_000))
                        .currentStartError(),
                "one up from before the error: the pool still cannot start more");
        assertEquals(
                NO_IMAGE,
                with(NO_IMAGE, started("new", ProcessorState.STARTING, NOW - 1_000))
                        .currentStartError(),
                "one started since, not up yet");
        assertNull(
                with(NO_IMAGE, started("new", ProcessorState.IDLE, NOW - 1_000)).currentStartError(),
                "one started since is up: the cause is gone");
        assertNull(
                with(NO_IMAGE, started("new", ProcessorState.BUSY, NOW - 1_000)).currentStartError());
    }
}
