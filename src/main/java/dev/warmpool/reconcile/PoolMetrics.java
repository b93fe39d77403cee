package dev.warmpool.reconcile;

import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.config.WarmthParams;
import dev.warmpool.pool.PoolSnapshot;
import dev.warmpool.pool.Warmth;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per pool, as Prometheus series, from the snapshots of each reconcile pass (the counters are
 * counted in Redis by the scripts, so they include what happened while no manager ran):
 * {@code warmpool_pool_processors{state}}, {@code warmpool_pool_queued_jobs},
 * {@code warmpool_jobs_submitted_total}, {@code warmpool_jobs_finished_total{state}}, and what
 * idle warmth costs: {@code warmpool_idle_processor_seconds_total}, {@code warmpool_warm_starts_total},
 * {@code warmpool_cold_starts_total} and, for a learned pool, {@code warmpool_warmth_window_seconds}
 * (each demand level's window: {@code edge} prewarm or keepAlive).
 */
@ApplicationScoped
public class PoolMetrics {
    private final MeterRegistry registry;
    private final Warmth.Params params;
    private final Map<String, PoolSnapshot> latest = new ConcurrentHashMap<>();
    private final Map<String, List<Meter>> meters = new ConcurrentHashMap<>();
    /** One per pool, kept: a MultiGauge built anew each pass would leave its first rows' values in the registry. */
    private final Map<String, MultiGauge> windows = new ConcurrentHashMap<>();

    public PoolMetrics(MeterRegistry registry, WarmpoolConfig config) {
        this.registry = registry;
        this.params = WarmthParams.of(config);
    }

    void saw(PoolSnapshot s) {
        latest.put(s.type(), s);
        meters.computeIfAbsent(s.type(), this::register);
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        if (s.spec().learned()) {
            for (Warmth.Window w : Warmth.windows(s.warmth(), s.spec().maxSize(), params, s.spec().idleTimeoutSeconds() * 1000L)) {
                if (w.trusted() && w.keepAliveMs() >= 0) {
                    Tags t = Tags.of("level", Integer.toString(w.level()));
                    rows.add(MultiGauge.Row.of(t.and("edge", "prewarm"), w.prewarmMs() / 1000.0));
                    rows.add(MultiGauge.Row.of(t.and("edge", "keepAlive"), w.keepAliveMs() / 1000.0));
                }
            }
        }
        windows.computeIfAbsent(s.type(), type -> MultiGauge.builder("warmpool.warmth.window.seconds").tag("pool", type)
                .description("The learned keep-alive's window per demand level: a processor is wanted from prewarm to keepAlive seconds after the level was left")
                .register(registry)).register(rows, true);
    }

    /** A reconcile pass that ran took this long: {@code warmpool_reconcile_pass_seconds}. */
    void pass(long nanos) {
        io.micrometer.core.instrument.Timer.builder("warmpool.reconcile.pass").description("Reconcile passes that ran (this manager held the lock)")
                .register(registry).record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    void removed(String type) {
        latest.remove(type);
        List<Meter> gone = meters.remove(type);
        if (gone != null) {
            gone.forEach(registry::remove);
        }
        MultiGauge w = windows.remove(type);
        if (w != null) {
            w.register(List.of(), true); // its rows leave the registry
        }
    }

    static final List<String> ENDS = List.of("SUCCEEDED", "FAILED", "CANCELLED", "TIMED_OUT", "EARLY_STOPPED");

    private List<Meter> register(String type) {
        List<Meter> out = new ArrayList<>();
        for (dev.warmpool.protocol.ProcessorState state : List.of(dev.warmpool.protocol.ProcessorState.STARTING,
                dev.warmpool.protocol.ProcessorState.IDLE, dev.warmpool.protocol.ProcessorState.BUSY,
                dev.warmpool.protocol.ProcessorState.DRAINING)) {
            out.add(io.micrometer.core.instrument.Gauge.builder("warmpool.pool.processors", latest,
                    m -> m.containsKey(type) ? m.get(type).count(state) : 0)
                    .tag("pool", type).tag("state", state.name().toLowerCase()).description("The pool's processors by state")
                    .register(registry));
        }
        out.add(io.micrometer.core.instrument.Gauge.builder("warmpool.pool.queued.jobs", latest,
                m -> m.containsKey(type) ? m.get(type).queued() : 0)
                .tag("pool", type).description("Jobs waiting in the pool's queue").register(registry));
        out.add(FunctionCounter.builder("warmpool.jobs.submitted", latest,
                m -> m.containsKey(type) ? m.get(type).warmth().warm() + m.get(type).warmth().cold() : 0)
                .tag("pool", type).description("Jobs submitted to the pool (sweep trials as they are released)").register(registry));
        for (String state : ENDS) {
            out.add(FunctionCounter.builder("warmpool.jobs.finished", latest, m -> m.containsKey(type) ? m.get(type).warmth().ended(state) : 0)
                    .tag("pool", type).tag("state", state).description("Jobs of the pool that ended, by end state").register(registry));
        }
        out.addAll(List.of(
                FunctionCounter.builder("warmpool.idle.processor.seconds", latest, m -> seconds(m.get(type)))
                        .tag("pool", type).description("Time processors of the pool spent idle (warm, no job)").register(registry),
                FunctionCounter.builder("warmpool.warm.starts", latest, m -> m.containsKey(type) ? m.get(type).warmth().warm() : 0)
                        .tag("pool", type).description("Jobs that found a warm processor").register(registry),
                FunctionCounter.builder("warmpool.cold.starts", latest, m -> m.containsKey(type) ? m.get(type).warmth().cold() : 0)
                        .tag("pool", type).description("Jobs that found no warm processor and waited for one").register(registry)));
        return out;
    }

    private static double seconds(PoolSnapshot s) {
        return s == null ? 0 : s.idleProcessorMs() / 1000.0;
    }
}
