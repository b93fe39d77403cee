package dev.warmpool.service;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.warmpool.policy.PoolSnapshot;
import dev.warmpool.policy.Warmth;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.pool.Processor;
import dev.warmpool.protocol.ProcessorState;
import dev.warmpool.protocol.script.TenantsReply;
import java.util.Comparator;
import java.util.List;

/**
 * A pool as {@code GET /pools/{type}} shows it; {@code startError}, when its processors cannot
 * start: why the last one was lost before it registered, until one started after it is up.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PoolView(
        String type,
        String state,
        PoolSpec spec,
        Status status,
        List<Processor> processors,
        List<Processor> gangs,
        WarmthView warmth,
        List<Tenant> tenants,
        PoolSnapshot.StartError startError) {

    /**
     * One tenant of the pool's fair share (docs/fair-share.md): its weight, its cap (absent: none),
     * jobs running and queued, usage (processor-seconds, decayed by the pool's half-life) and share
     * ({@code (running + usageSeconds / halfLife) / weight}; the next free processor goes to the
     * smallest among tenants with queued jobs under their cap); {@code sweeps}, what its sweeps here cost.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Tenant(
            String tenant,
            double weight,
            Integer maxRunning,
            int running,
            int queued,
            double usageSeconds,
            double share,
            SweepCost sweeps) {
        static Tenant of(TenantsReply.Tenant t) {
            return new Tenant(
                    t.tenant(),
                    t.weight(),
                    t.maxRunning(),
                    t.running(),
                    t.queued(),
                    t.usageSeconds(),
                    t.share(),
                    new SweepCost(t.sweepSeconds(), t.sweepColdStarts(), t.sweepIdleSeconds()));
        }
    }

    /**
     * A tenant's sweeps' cost in the pool, summed over them all (docs/sweeps.md, "What a sweep cost"):
     * {@code busySeconds}, their trials' run time; {@code coldStarts}, the processor starts their trials waited for;
     * {@code idleSeconds}, the idle time processors held for them between their trials.
     */
    public record SweepCost(double busySeconds, int coldStarts, double idleSeconds) {}

    /** Counts of processors by state, and of queued jobs. */
    public record Status(int starting, int idle, int busy, int draining, int queued) {}

    /**
     * What idle warmth costs and what the policy chose: arrivals that found a warm processor
     * ({@code warmStarts}) or none ({@code coldStarts}), idle processor time over the pool's life,
     * its demand now, and with the learned policy each demand level's window (seconds after the
     * level was left: a processor is wanted from {@code prewarmSeconds} to {@code keepAliveSeconds};
     * {@code learned: false}: too few gaps yet, the fixed keep-alive applies; neither: not worth
     * keeping warm, the level's processor goes back at once).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record WarmthView(
            String policy,
            long warmStarts,
            long coldStarts,
            double idleProcessorSeconds,
            int demand,
            List<Level> levels) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Level(int level, long samples, boolean learned, Double prewarmSeconds, Double keepAliveSeconds) {}

    public PoolView(
            String type,
            String state,
            PoolSpec spec,
            Status status,
            List<Processor> processors,
            List<Processor> gangs,
            WarmthView warmth) {
        this(type, state, spec, status, processors, gangs, warmth, null, null);
    }

    /** The view with {@code spec} in place of its own. */
    public PoolView withSpec(PoolSpec spec) {
        return new PoolView(type, state, spec, status, processors, gangs, warmth, tenants, startError);
    }

    /** The view of a snapshot and the pool's tenants, read in the same step ({@code null}: not read). */
    public static PoolView of(PoolSnapshot s, Warmth.Params params, List<TenantsReply.Tenant> tenants) {
        PoolView v = of(s, params);
        return new PoolView(
                v.type,
                v.state,
                v.spec,
                v.status,
                v.processors,
                v.gangs,
                v.warmth,
                tenants == null ? null : tenants.stream().map(Tenant::of).toList(),
                v.startError);
    }

    public static PoolView of(PoolSnapshot s, Warmth.Params params) {
        return new PoolView(
                s.type(),
                s.draining() ? "DRAINING" : "ACTIVE",
                s.spec(),
                new Status(
                        s.count(ProcessorState.STARTING),
                        s.count(ProcessorState.IDLE),
                        s.count(ProcessorState.BUSY),
                        s.count(ProcessorState.DRAINING),
                        s.queued()),
                s.processors().stream()
                        .sorted(Comparator.comparing(Processor::id))
                        .toList(),
                s.spec().isGang()
                        ? s.gangs().stream()
                                .sorted(Comparator.comparing(Processor::id))
                                .toList()
                        : null,
                warmth(s, params),
                null,
                s.currentStartError());
    }

    static WarmthView warmth(PoolSnapshot s, Warmth.Params params) {
        Warmth.History h = s.warmth();
        List<Level> levels = null;
        if (s.spec().learned()) {
            levels = Warmth.windows(h, s.spec().maxSize(), params, s.spec().idleTimeoutSeconds() * 1000L).stream()
                    .map(w -> w.keepAliveMs() < 0
                            ? new Level(w.level(), w.samples(), w.trusted(), null, null)
                            : new Level(
                                    w.level(),
                                    w.samples(),
                                    w.trusted(),
                                    w.prewarmMs() / 1000.0,
                                    w.keepAliveMs() / 1000.0))
                    .toList();
        }
        return new WarmthView(
                s.spec().learned() ? PoolSpec.LEARNED : PoolSpec.FIXED,
                h.warm(),
                h.cold(),
                s.idleProcessorMs() / 1000.0,
                h.demand(),
                levels);
    }
}
