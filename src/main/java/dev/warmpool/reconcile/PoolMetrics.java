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
 * What idle warmth costs, per pool, as Prometheus series, from the snapshots of each reconcile
 * pass (Redis counts them, so they include what happened while no manager ran):
 * {@code warmpool_idle_processor_seconds_total}, {@code warmpool_warm_starts_total},
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

    private List<Meter> register(String type) {
        return List.of(
                FunctionCounter.builder("warmpool.idle.processor.seconds", latest, m -> seconds(m.get(type)))
                        .tag("pool", type).description("Time processors of the pool spent idle (warm, no job)").register(registry),
                FunctionCounter.builder("warmpool.warm.starts", latest, m -> m.containsKey(type) ? m.get(type).warmth().warm() : 0)
                        .tag("pool", type).description("Jobs that found a warm processor").register(registry),
                FunctionCounter.builder("warmpool.cold.starts", latest, m -> m.containsKey(type) ? m.get(type).warmth().cold() : 0)
                        .tag("pool", type).description("Jobs that found no warm processor and waited for one").register(registry));
    }

    private static double seconds(PoolSnapshot s) {
        return s == null ? 0 : s.idleProcessorMs() / 1000.0;
    }
}
