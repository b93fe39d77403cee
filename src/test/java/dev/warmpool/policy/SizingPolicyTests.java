package dev.warmpool.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.warmpool.pool.PoolSpec;
import dev.warmpool.pool.Processor;
import dev.warmpool.protocol.ProcessorState;
import dev.warmpool.testing.Specs;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Table tests of the sizing rules, pinned to a fixed instant. */
@Tag("unit")
class SizingPolicyTests {
    static final long NOW = 1_800_000_000_000L;
    static final SizingPolicy.Timing TIMING = new SizingPolicy.Timing(10_000, 60_000, 30_000);

    static Processor proc(String id, ProcessorState state, long idleForMs) {
        long started = state == ProcessorState.STARTING ? NOW - 1000 : NOW - 100_000;
        return new Processor(
                id, state, state == ProcessorState.BUSY ? "job" : null, NOW - idleForMs, NOW - 1000, started);
    }

    static PoolSnapshot pool(
            int minIdle, int maxSize, int idleTimeoutSeconds, int queued, boolean draining, Processor... ps) {
        PoolSpec spec = Specs.process("true")
                .minIdle(minIdle)
                .maxSize(maxSize)
                .idleTimeoutSeconds(idleTimeoutSeconds)
                .build();
        return new PoolSnapshot("t", spec, draining, queued, NOW, List.of(ps));
    }

    static Set<String> all(PoolSnapshot s) {
        return s.processors().stream().map(Processor::id).collect(Collectors.toSet());
    }

    static SizingPolicy.Plan plan(PoolSnapshot s) {
        return SizingPolicy.plan(s, TIMING, all(s));
    }

    @Test
    void startsNowWhatAFullPassWouldStartWhenNothingIsLost() {
        PoolSnapshot empty = pool(2, 4, 300, 0, false);
        PoolSnapshot busy = pool(1, 4, 300, 2, false, proc("a", ProcessorState.BUSY, 0));
        PoolSnapshot full =
                pool(1, 2, 300, 5, false, proc("a", ProcessorState.BUSY, 0), proc("b", ProcessorState.BUSY, 0));
        PoolSnapshot warm = pool(1, 4, 300, 0, false, proc("a", ProcessorState.IDLE, 0));
        PoolSnapshot starting = pool(1, 4, 300, 0, false, proc("a", ProcessorState.STARTING, 0));
        PoolSnapshot draining = pool(1, 4, 300, 0, true);
        for (PoolSnapshot s : List.of(empty, busy, full, warm, starting, draining)) {
            assertEquals(plan(s).start(), SizingPolicy.startNow(s, TIMING, all(s)));
        }
        assertEquals(2, SizingPolicy.startNow(empty, TIMING, Set.of()));
        assertEquals(3, SizingPolicy.startNow(busy, TIMING, all(busy)));
        assertEquals(0, SizingPolicy.startNow(warm, TIMING, all(warm)));
    }

    @Test
    void startsNowCountingAProcessorWithAStaleHeartbeatAsAlive() {
        // whether it is lost is the full pass's to say (it also stops it): starting early for it
        // could go past maxSize while it is still there
        Processor stale = new Processor("a", ProcessorState.IDLE, null, NOW - 60_000, NOW - 60_000, NOW - 100_000);
        PoolSnapshot s = pool(1, 1, 300, 0, false, stale);
        assertEquals(1, plan(s).start(), "the full pass replaces it");
        assertEquals(0, SizingPolicy.startNow(s, TIMING, all(s)));
    }

    @Test
    void startsNowNothingForAnAgentThatRegistersAgainAfterRedisLostItsData() {
        PoolSnapshot forgotten = pool(1, 1, 300, 0, false);
        assertEquals(1, SizingPolicy.startNow(forgotten, TIMING, Set.of()));
        assertEquals(0, SizingPolicy.startNow(forgotten, TIMING, Set.of("back")), "its process still runs");
    }

    @Test
    void startsMinIdleInAnEmptyPool() {
        assertEquals(2, plan(pool(2, 4, 300, 0, false)).start());
    }

    @Test
    void startsOneProcessorPerQueuedJobUpToMaxSize() {
        assertEquals(
                3,
                plan(pool(0, 4, 300, 3, false, proc("a", ProcessorState.BUSY, 0)))
                        .start());
        assertEquals(
                3,
                plan(pool(1, 4, 300, 10, false, proc("a", ProcessorState.BUSY, 0)))
                        .start());
    }

    @Test
    void startsProcessorsOnlyForTheQueuedJobsTheTenantsCapsLetRun() {
        PoolSnapshot s = pool(0, 8, 300, 10, false, proc("a", ProcessorState.BUSY, 0));
        PoolSnapshot capped = new PoolSnapshot(
                s.type(), s.spec(), false, 10, s.now(), s.processors(), 0, List.of(), Warmth.History.NONE, 0, 1, null);
        assertEquals(1, plan(capped).start(), "nine of the ten are held back by their tenant's maxRunning");
        assertEquals(7, plan(s).start(), "uncapped, one per queued job up to maxSize");
    }

    static PoolSnapshot withSweeps(PoolSnapshot s, int sweepDemand) {
        return new PoolSnapshot(s.type(), s.spec(), s.draining(), s.queued(), s.now(), s.processors(), sweepDemand);
    }

    @Test
    void growsToTheRunningSweepsParallelismWithinMaxSize() {
        // a sweep of parallelism 3 whose first trial runs: room for the other two before they are released
        assertEquals(
                2,
                plan(withSweeps(pool(0, 8, 300, 0, false, proc("a", ProcessorState.BUSY, 0)), 3))
                        .start());
        assertEquals(
                3,
                plan(withSweeps(pool(1, 8, 300, 0, false, proc("a", ProcessorState.BUSY, 0)), 3))
                        .start());
        assertEquals(
                1,
                plan(withSweeps(pool(0, 2, 300, 0, false, proc("a", ProcessorState.BUSY, 0)), 6))
                        .start());
        assertEquals(0, plan(withSweeps(pool(0, 8, 300, 0, true), 3)).start(), "a draining pool starts nothing");
    }

    @Test
    void keepsTheSweepsProcessorsWarmBetweenTrialsAndGivesThemBackByTheIdleTimeoutAfterwards() {
        Processor[] between = {
            proc("a", ProcessorState.BUSY, 0),
            proc("b", ProcessorState.IDLE, 400_000),
            proc("c", ProcessorState.IDLE, 400_000)
        };
        assertEquals(
                List.of(),
                plan(withSweeps(pool(0, 8, 300, 0, false, between), 3)).retire());
        assertEquals(
                2,
                plan(withSweeps(pool(0, 8, 300, 0, false, between), 0)).retire().size(),
                "sweep over: back to minIdle");
    }

    static PoolSnapshot gangPool(int minIdle, int maxSize, int queued, List<Processor> members, List<Processor> gangs) {
        PoolSpec spec = Specs.process("true")
                .minIdle(minIdle)
                .maxSize(maxSize)
                .gang(Map.of(
                        "ps", new PoolSpec.GangRole(1, null, null), "worker", new PoolSpec.GangRole(2, null, null)))
                .build();
        return new PoolSnapshot("t", spec, false, queued, NOW, members, 0, gangs);
    }

    @Test
    void aGangPoolCountsGangsNotMembers() {
        List<Processor> members = List.of(
                proc("g1-0", ProcessorState.IDLE, 0),
                proc("g1-1", ProcessorState.IDLE, 0),
                proc("g1-2", ProcessorState.IDLE, 0));
        List<Processor> oneIdleGang = List.of(proc("g1", ProcessorState.IDLE, 0));
        assertEquals(0, plan(gangPool(1, 4, 0, members, oneIdleGang)).start(), "three idle members are one idle gang");
        assertEquals(
                2,
                plan(gangPool(1, 4, 1, members, List.of(proc("g1", ProcessorState.BUSY, 0))))
                        .start(),
                "a busy gang and a queued job: a gang for the job and one for the idle head-room");
        assertEquals(
                0,
                plan(gangPool(0, 1, 5, members, List.of(proc("g1", ProcessorState.BUSY, 0))))
                        .start(),
                "maxSize is gangs");
        List<SizingPolicy.Retire> retire = plan(gangPool(
                        0, 4, 0, members, List.of(proc("g1", ProcessorState.IDLE, 400_000))))
                .retire();
        assertEquals(
                List.of("g1"), retire.stream().map(SizingPolicy.Retire::id).toList(), "an idle gang goes back whole");
    }

    @Test
    void aGangMemberIsLostOnItsOwnHeartbeat() {
        Processor silent = new Processor("g1-1", ProcessorState.BUSY, "job", NOW, NOW - 60_000, NOW - 100_000);
        List<Processor> members =
                List.of(proc("g1-0", ProcessorState.BUSY, 0), silent, proc("g1-2", ProcessorState.BUSY, 0));
        PoolSnapshot s = gangPool(0, 1, 0, members, List.of(proc("g1", ProcessorState.BUSY, 0)));
        assertEquals(
                List.of("g1-1"),
                plan(s).lost().stream().map(SizingPolicy.Lost::id).toList());
    }

    @Test
    void countsStartingProcessorsAsComing() {
        assertEquals(
                1,
                plan(pool(0, 4, 300, 2, false, proc("a", ProcessorState.STARTING, 0)))
                        .start());
    }

    @Test
    void keepsMinIdleHeadroomAboveTheBusyOnes() {
        assertEquals(
                1,
                plan(pool(1, 4, 300, 0, false, proc("a", ProcessorState.BUSY, 0), proc("b", ProcessorState.BUSY, 0)))
                        .start());
    }

    @Test
    void neverStartsAboveMaxSizeCountingDrainingOnes() {
        assertEquals(
                0,
                plan(pool(
                                1,
                                2,
                                300,
                                5,
                                false,
                                proc("a", ProcessorState.BUSY, 0),
                                proc("b", ProcessorState.DRAINING, 0)))
                        .start());
    }

    @Test
    void startsNothingForADrainingPool() {
        assertEquals(0, plan(pool(2, 4, 300, 0, true)).start());
    }

    @Test
    void retiresIdleProcessorsPastTheTimeoutDownToMinIdleLongestIdleFirst() {
        SizingPolicy.Plan p = plan(pool(
                1,
                4,
                60,
                0,
                false,
                proc("new", ProcessorState.IDLE, 1_000),
                proc("old", ProcessorState.IDLE, 120_000),
                proc("older", ProcessorState.IDLE, 180_000)));
        assertEquals(
                List.of("older", "old"),
                p.retire().stream().map(SizingPolicy.Retire::id).toList());
        assertEquals(NOW - 60_000, p.retire().get(0).idleSinceAtMost());
    }

    @Test
    void keepsMinIdleEvenWhenAllAreExpired() {
        SizingPolicy.Plan p = plan(pool(
                2, 4, 60, 0, false, proc("a", ProcessorState.IDLE, 120_000), proc("b", ProcessorState.IDLE, 120_000)));
        assertEquals(List.of(), p.retire());
    }

    @Test
    void retiresIdleProcessorsAboveALoweredMaxSizeAtOnce() {
        SizingPolicy.Plan p = plan(pool(
                0,
                1,
                300,
                0,
                false,
                proc("a", ProcessorState.IDLE, 10),
                proc("b", ProcessorState.IDLE, 20),
                proc("c", ProcessorState.BUSY, 0)));
        assertEquals(2, p.retire().size());
        assertEquals(Long.MAX_VALUE, p.retire().get(0).idleSinceAtMost());
    }

    @Test
    void neverRetiresABusyProcessor() {
        SizingPolicy.Plan p = plan(pool(0, 4, 1, 0, false, proc("a", ProcessorState.BUSY, 500_000)));
        assertEquals(List.of(), p.retire());
    }

    @Test
    void retiresEveryIdleProcessorOfADrainingPoolOnceExpiredOrNot() {
        SizingPolicy.Plan p = plan(pool(2, 4, 60, 0, true, proc("a", ProcessorState.IDLE, 120_000)));
        assertEquals(
                List.of("a"), p.retire().stream().map(SizingPolicy.Retire::id).toList());
    }

    @Test
    void losesAProcessorWithAStaleHeartbeatAndReplacesIt() {
        Processor stale = new Processor("s", ProcessorState.BUSY, "j", NOW - 50_000, NOW - 11_000, NOW - 100_000);
        SizingPolicy.Plan p = plan(pool(1, 4, 300, 0, false, stale));
        assertEquals(List.of("s"), p.lost().stream().map(SizingPolicy.Lost::id).toList());
        assertEquals(NOW - 10_000, p.lost().get(0).heartbeatDeadline());
        assertEquals(1, p.start());
    }

    @Test
    void losesAProcessorWhoseProcessIsGoneWithoutWaitingForItsHeartbeat() {
        PoolSnapshot s = pool(0, 4, 300, 0, false, proc("a", ProcessorState.IDLE, 0));
        SizingPolicy.Plan p = SizingPolicy.plan(s, TIMING, Set.of());
        assertEquals(List.of("a"), p.lost().stream().map(SizingPolicy.Lost::id).toList());
    }

    @Test
    void givesAJustSpawnedProcessorTimeBeforeItsProcessShowsUp() {
        Processor fresh = new Processor("f", ProcessorState.STARTING, null, NOW - 100, NOW - 100, NOW - 100);
        assertEquals(
                List.of(),
                SizingPolicy.plan(pool(1, 4, 300, 0, false, fresh), TIMING, Set.of())
                        .lost());
    }

    @Test
    void replacesAProcessorThatNeverRegistered() {
        Processor stuck = new Processor("x", ProcessorState.STARTING, null, NOW - 61_000, NOW - 61_000, NOW - 61_000);
        SizingPolicy.Plan p = plan(pool(1, 4, 300, 0, false, stuck));
        assertEquals(List.of("x"), p.lost().stream().map(SizingPolicy.Lost::id).toList());
        assertEquals(1, p.start());
    }

    @Test
    void doesNotLoseProcessorsRightAfterRedisComesBack() {
        Processor stale = new Processor("s", ProcessorState.BUSY, "j", NOW - 50_000, NOW - 30_000, NOW - 100_000);
        PoolSnapshot s = pool(0, 4, 300, 0, false, stale);
        assertEquals(
                List.of(), SizingPolicy.plan(s, TIMING, all(s), NOW - 5_000).lost());
        assertEquals(
                List.of("s"),
                SizingPolicy.plan(s, TIMING, all(s), NOW - 11_000).lost().stream()
                        .map(SizingPolicy.Lost::id)
                        .toList());
    }

    @Test
    void countsAProcessTheRuntimeRunsButRedisForgotAsComingBack() {
        PoolSnapshot s = pool(1, 4, 300, 0, false);
        assertEquals(0, SizingPolicy.plan(s, TIMING, Set.of("returning")).start());
        assertEquals(1, SizingPolicy.plan(s, TIMING, Set.of()).start());
    }

    @Test
    void aPoolWhoseProcessorsCannotStartWaitsAMomentBeforeItStartsAnother() {
        PoolSnapshot.StartError fresh =
                new PoolSnapshot.StartError("the persistent worker exited at once", Instant.ofEpochMilli(NOW - 1_000));
        assertEquals(
                1, SizingPolicy.toStart(PoolSnapshotTests.with(null), List.of(), 1), "no error: minIdle is started");
        assertEquals(
                0, SizingPolicy.toStart(PoolSnapshotTests.with(fresh), List.of(), 1), "an error a second old: not yet");
        assertEquals(
                1,
                SizingPolicy.toStart(PoolSnapshotTests.with(PoolSnapshotTests.NO_IMAGE), List.of(), 1),
                "five seconds old: it tries again");
        Processor up = PoolSnapshotTests.started("new", ProcessorState.IDLE, NOW - 500);
        assertEquals(
                1,
                SizingPolicy.toStart(PoolSnapshotTests.with(fresh, up), List.of(up), 2),
                "one started since is up: the error is gone, so is the wait");
    }
}
