package dev.warmpool.reconcile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.policy.PoolSnapshot;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.pool.Processor;
import dev.warmpool.protocol.ProcessorState;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Table tests of the manager's timeout backstop, pinned to a fixed instant. */
@Tag("unit")
class DeadlinesTests {
    static final long NOW = 1_800_000_000_000L;
    static final long GRACE = 30_000;
    static final long START = 60_000;
    static final Deadlines.Timing TIMING = new Deadlines.Timing(GRACE, START);

    static PoolSnapshot pool(List<String> resetCommand, Processor... ps) {
        PoolSpec spec = PoolSpec.builder()
                .command(List.of("true"))
                .minIdle(0)
                .maxSize(4)
                .idleTimeoutSeconds(300)
                .env(Map.of())
                .maxQueued(100)
                .worker("process")
                .resetCommand(resetCommand)
                .build();
        return new PoolSnapshot("t", spec, false, 0, NOW, List.of(ps));
    }

    /** A processor on job "j-" + id since {@code sinceAgo} ms, with its deadline {@code deadlineIn} ms from now (null: not started). */
    static Processor busy(String id, long sinceAgo, Long deadlineIn) {
        return new Processor(
                id,
                ProcessorState.BUSY,
                "j-" + id,
                NOW - sinceAgo,
                NOW - 500, // its heartbeat is fresh: only the deadline can tell
                NOW - 600_000,
                deadlineIn == null ? 0 : NOW + deadlineIn);
    }

    static List<String> overdue(PoolSnapshot s) {
        return Deadlines.overdue(s, TIMING).stream()
                .map(Deadlines.Overdue::processorId)
                .toList();
    }

    record Row(String name, Processor p, boolean overdue) {}

    @Test
    void aStartedJobIsOverdueOncePastItsDeadlineAndTheGrace() {
        List<Row> table = List.of(
                new Row("before its deadline", busy("a", 5_000, 1_000L), false),
                new Row(
                        "past its deadline, inside the grace: the agent's own timeout",
                        busy("b", 5_000, -1_000L),
                        false),
                new Row("one ms short of the grace", busy("c", 50_000, -(GRACE - 1)), false),
                new Row("at the grace", busy("d", 50_000, -GRACE), true),
                new Row("long past", busy("e", 900_000, -600_000L), true));
        for (Row r : table) {
            assertEquals(r.overdue(), !overdue(pool(null, r.p())).isEmpty(), r.name());
        }
    }

    @Test
    void anAssignedJobNotStartedIsOverdueOnlyPastTheStartBound() {
        List<Row> table = List.of(
                new Row("assigned just now", busy("a", 1_000, null), false),
                new Row("inside start timeout and grace", busy("b", START + GRACE - 1, null), false),
                new Row("past start timeout and grace", busy("c", START + GRACE, null), true));
        for (Row r : table) {
            assertEquals(r.overdue(), !overdue(pool(null, r.p())).isEmpty(), r.name());
        }
        Processor waitsOnReset = busy("r", START + GRACE + 60_000, null);
        assertEquals(
                List.of(),
                overdue(pool(List.of("reset.sh"), waitsOnReset)),
                "the next job waits in the inbox while the agent runs its pool's reset command");
        assertEquals(
                List.of("r"),
                overdue(pool(List.of("reset.sh"), busy("r", START + GRACE + Deadlines.RESET_BOUND_MILLIS, null))));
    }

    @Test
    void onlyBusyProcessorsWithAJobCount() {
        Processor idle =
                new Processor("i", ProcessorState.IDLE, null, NOW - 900_000, NOW, NOW - 900_000, NOW - 800_000);
        Processor draining =
                new Processor("d", ProcessorState.DRAINING, null, NOW - 900_000, NOW, NOW - 900_000, NOW - 800_000);
        Processor starting = new Processor("s", ProcessorState.STARTING, null, NOW - 900_000, NOW, NOW - 900_000);
        assertEquals(
                List.of(), overdue(pool(null, idle, draining, starting)), "an old deadline left on a free processor");
    }

    @Test
    void theOverdueCarryWhatTheSnapshotSawForTheScriptsFence() {
        Processor p = busy("a", 100_000, -60_000L);
        Deadlines.Overdue o = Deadlines.overdue(pool(null, p), TIMING).get(0);
        assertEquals(new Deadlines.Overdue("a", "j-a", p.sinceMillis(), p.deadlineMillis(), o.reason()), o);
        assertTrue(o.reason().startsWith("timed out"), o.reason());
        Deadlines.Overdue notStarted =
                Deadlines.overdue(pool(null, busy("b", 900_000, null)), TIMING).get(0);
        assertEquals(0, notStarted.deadline());
        assertTrue(notStarted.reason().contains("did not start the job"), notStarted.reason());
    }
}
