package dev.warmpool.policy;

import dev.warmpool.pool.Processor;
import dev.warmpool.protocol.ProcessorState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * How many processors a pool should have now, and which ones to give back: a pure function of
 * a snapshot and its instant, so every rule is table-tested without Redis or a runtime.
 *
 * <p>The economics: a warm processor costs its memory while idle and saves a cold start
 * (seconds) for every job it takes. So a pool keeps {@code minIdle} idle processors as
 * head-room above the busy ones, starts one for every queued job (a queue means no idle one is
 * left), never exceeds {@code maxSize}, and gives back an idle processor beyond {@code minIdle}
 * only after {@code idleTimeoutSeconds} without work: a burst that comes back within the
 * timeout finds its processors still warm. The one idle longest goes first (submit takes the
 * warmest), so retirement picks processors that the current load does not need.
 *
 * <p>A running sweep holds up to its parallelism of trials out at once; while it runs, the pool
 * keeps that many processors (within {@code maxSize}) even in the instant between one trial's
 * end and the next one's start, and gives them back by the idle timeout afterwards.
 *
 * <p>A pool with {@code "warmth": "learned"} replaces the fixed timeout with what its demand has
 * done ({@link Warmth}): the idle processors it keeps are, above {@code minIdle}, those of the
 * demand levels whose learned window says one is wanted now; the others go back at once, and a
 * processor is started ahead of a level's predicted return.
 */
public final class SizingPolicy {

    /** Time limits of a processor's life, in milliseconds. */
    public record Timing(
            long heartbeatTimeout, long startTimeout, long drainTimeout, long orphanGrace, Warmth.Params warmth) {
        public Timing(long heartbeatTimeout, long startTimeout, long drainTimeout, long orphanGrace) {
            this(heartbeatTimeout, startTimeout, drainTimeout, orphanGrace, Warmth.Params.DEFAULT);
        }

        public Timing(long heartbeatTimeout, long startTimeout, long drainTimeout) {
            this(heartbeatTimeout, startTimeout, drainTimeout, heartbeatTimeout);
        }
    }

    /** Give back an idle processor, provided it has been idle since at most {@code idleSinceAtMost}. */
    public record Retire(String id, long idleSinceAtMost) {}

    /** Remove a processor that stopped answering; its job is requeued. */
    public record Lost(String id, long heartbeatDeadline, String reason) {}

    /** What to do to one pool. */
    public record Plan(int start, List<Retire> retire, List<Lost> lost) {
        public boolean isEmpty() {
            return start == 0 && retire.isEmpty() && lost.isEmpty();
        }
    }

    private SizingPolicy() {}

    /**
     * The plan for one pool. {@code running} holds the ids of the processors the runtime has; a
     * processor past its start grace that the runtime does not have is lost at once, without
     * waiting for its heartbeat to go stale.
     */
    public static Plan plan(PoolSnapshot s, Timing t, Set<String> running) {
        return plan(s, t, running, 0);
    }

    /**
     * As above; heartbeats older than {@code heartbeatsSince} (Redis time) do not count as
     * missed: right after Redis restarts, or after the manager could not reach it, agents have
     * had no chance to heartbeat, and a stale timestamp says nothing about them.
     */
    public static Plan plan(PoolSnapshot s, Timing t, Set<String> running, long heartbeatsSince) {
        if (s.spec().isGang()) {
            return planGangs(s, t, running, heartbeatsSince);
        }
        List<Lost> lost = lost(s, t, running, heartbeatsSince);
        List<Processor> alive = s.processors().stream()
                .filter(p -> lost.stream().noneMatch(l -> l.id().equals(p.id())))
                .toList();
        // a process the runtime runs that Redis does not know yet (an agent registering again
        // after Redis lost its data) is on its way back: count it as starting, not start another
        Set<String> known = new HashSet<>();
        s.processors().forEach(p -> known.add(p.id()));
        int returning = (int) running.stream().filter(id -> !known.contains(id)).count();
        int idle = idleTarget(s, alive, t.warmth());
        return new Plan(Math.max(0, toStart(s, alive, idle) - returning), toRetire(s, alive, idle), lost);
    }

    /**
     * A gang pool: members are lost one by one (a lost member breaks its gang, which then
     * drains), while starting and retiring count whole gangs: {@code minIdle} idle gangs,
     * {@code maxSize} gangs, and a gang that has been idle past the timeout is given back whole.
     * Gangs still draining count against {@code maxSize} until their last member is gone.
     */
    static Plan planGangs(PoolSnapshot s, Timing t, Set<String> running, long heartbeatsSince) {
        List<Lost> lost = lost(s, t, running, heartbeatsSince);
        PoolSnapshot gangs = s.asGangs();
        return new Plan(
                toStart(gangs, gangs.processors(), s.spec().minIdle()),
                toRetire(gangs, gangs.processors(), s.spec().minIdle()),
                lost);
    }

    static List<Lost> lost(PoolSnapshot s, Timing t, Set<String> running, long heartbeatsSince) {
        List<Lost> lost = new ArrayList<>();
        for (Processor p : s.processors()) {
            if (!running.contains(p.id()) && p.startedMillis() < s.now() - t.orphanGrace()) {
                lost.add(new Lost(p.id(), Long.MAX_VALUE, "processor " + p.id() + " was lost (its process is gone)"));
            } else if (p.state() == ProcessorState.STARTING) {
                if (p.startedMillis() < s.now() - t.startTimeout()) {
                    lost.add(new Lost(
                            p.id(),
                            Long.MAX_VALUE,
                            "processor " + p.id() + " did not start within " + t.startTimeout() / 1000 + " s"));
                }
            } else if (p.state() == ProcessorState.DRAINING && p.sinceMillis() < s.now() - t.drainTimeout()) {
                lost.add(new Lost(
                        p.id(),
                        Long.MAX_VALUE,
                        "processor " + p.id() + " did not stop within " + t.drainTimeout() / 1000 + " s"));
            } else if (p.heartbeatMillis() < s.now() - t.heartbeatTimeout()
                    && heartbeatsSince < s.now() - t.heartbeatTimeout()) {
                lost.add(new Lost(
                        p.id(),
                        s.now() - t.heartbeatTimeout(),
                        "processor " + p.id() + " was lost (no heartbeat for " + t.heartbeatTimeout() / 1000 + " s)"));
            }
        }
        return lost;
    }

    /**
     * How many processors (gangs, in a gang pool) pool {@code s} lacks now, counting every
     * processor Redis has as alive: what a pool just created, or one that has just lost a
     * processor, should start before a full pass has looked at it. As in {@link #plan}, a process
     * in {@code running} that Redis does not know (an agent registering again after Redis lost
     * its data) counts as starting. Losses and retirements are the full pass's; this only ever
     * starts what that would.
     */
    public static int startNow(PoolSnapshot s, Timing t, Set<String> running) {
        if (s.spec().isGang()) {
            PoolSnapshot gangs = s.asGangs();
            return toStart(gangs, gangs.processors(), s.spec().minIdle());
        }
        Set<String> known = new HashSet<>();
        s.processors().forEach(p -> known.add(p.id()));
        int returning = (int) running.stream().filter(id -> !known.contains(id)).count();
        return Math.max(0, toStart(s, s.processors(), idleTarget(s, s.processors(), t.warmth())) - returning);
    }

    /**
     * The idle processors to keep above the busy ones: {@code minIdle}, or with the learned
     * policy as many as its windows want now, at least {@code minIdle}.
     */
    static int idleTarget(PoolSnapshot s, List<Processor> alive, Warmth.Params p) {
        if (!s.spec().learned()) {
            return s.spec().minIdle();
        }
        int demand = count(alive, ProcessorState.BUSY) + s.runnable();
        return Math.max(
                s.spec().minIdle(),
                Warmth.idleWanted(
                        s.warmth(),
                        demand,
                        s.spec().maxSize(),
                        s.now(),
                        s.spec().idleTimeoutSeconds() * 1000L,
                        p));
    }

    /**
     * How long a pool whose processors cannot start waits after its last start error before it
     * starts another: without it, an agent whose worker exits at once was replaced as fast as
     * agents spawn (one JVM after the other on a laptop's cores). Short, so that a cause that is
     * gone (an image pulled meanwhile) costs little; waiters learn the error at once anyway.
     */
    static final long START_RETRY_MILLIS = 3_000;

    static int toStart(PoolSnapshot s, List<Processor> alive, int idleTarget) {
        if (s.draining()) {
            return 0;
        }
        PoolSnapshot.StartError failed = s.currentStartError();
        if (failed != null && s.now() - failed.at().toEpochMilli() < START_RETRY_MILLIS) {
            return 0;
        }
        int idle = count(alive, ProcessorState.IDLE);
        int busy = count(alive, ProcessorState.BUSY);
        int starting = count(alive, ProcessorState.STARTING);
        int draining = count(alive, ProcessorState.DRAINING);
        // queued jobs a tenant's cap holds back would only keep new processors idle
        int wanted = Math.max(busy + s.runnable(), s.sweepDemand()) + idleTarget;
        // a draining processor still counts against maxSize until it is gone
        int room = s.spec().maxSize() - draining;
        return Math.max(0, Math.min(wanted, room) - (idle + busy + starting));
    }

    static List<Retire> toRetire(PoolSnapshot s, List<Processor> alive, int idleTarget) {
        List<Processor> idle = alive.stream()
                .filter(p -> p.state() == ProcessorState.IDLE)
                .sorted(Comparator.comparingLong(Processor::sinceMillis))
                .toList();
        int live = (int)
                alive.stream().filter(p -> p.state() != ProcessorState.DRAINING).count();
        int overMax = Math.max(0, live - s.spec().maxSize());
        int busy = count(alive, ProcessorState.BUSY);
        int keep = s.draining() ? 0 : idleTarget + Math.max(0, s.sweepDemand() - busy);
        boolean learned = s.spec().learned();
        long expiredBefore = s.now() - s.spec().idleTimeoutSeconds() * 1000L;
        List<Retire> retire = new ArrayList<>();
        for (Processor p : idle) {
            if (retire.size() < overMax) {
                retire.add(new Retire(p.id(), Long.MAX_VALUE));
            } else if (idle.size() - retire.size() > keep && learned) {
                // the learned windows have already weighed how long it idled: the longest idle goes,
                // unless it took a job (and idled again) since this snapshot
                retire.add(new Retire(p.id(), p.sinceMillis()));
            } else if (idle.size() - retire.size() > keep && p.sinceMillis() <= expiredBefore) {
                retire.add(new Retire(p.id(), expiredBefore));
            }
        }
        return retire;
    }

    private static int count(List<Processor> ps, ProcessorState state) {
        return (int) ps.stream().filter(p -> p.state() == state).count();
    }
}
