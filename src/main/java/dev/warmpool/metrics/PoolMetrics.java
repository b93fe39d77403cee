package dev.warmpool.metrics;

import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.config.WarmthParams;
import dev.warmpool.policy.PoolSnapshot;
import dev.warmpool.policy.Warmth;
import dev.warmpool.protocol.script.StatsReply;
import dev.warmpool.protocol.script.TenantsReply;
import dev.warmpool.store.PoolStore;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Per pool, as Prometheus series. The counts are read from Redis for each scrape
 * ({@link #refresh}: stats.lua once per pool, all pools in one round of concurrent calls, at most
 * once per {@link #MIN_READ_INTERVAL}; the scripts count in Redis, so the figures include what
 * happened while no manager ran): {@code warmpool_pool_processors{state}},
 * {@code warmpool_pool_queued_jobs}, {@code warmpool_jobs_submitted_total},
 * {@code warmpool_jobs_finished_total{state}}, {@code warmpool_idle_processor_seconds_total},
 * {@code warmpool_warm_starts_total}, {@code warmpool_cold_starts_total},
 * {@code warmpool_sweep_trial_busy_seconds_total}, and the histograms
 * {@code warmpool_job_queue_wait_seconds} and {@code warmpool_job_run_seconds} ({@link Timings}).
 * What the learned keep-alive chose comes from the reconcile passes (it needs the pool's full
 * history): {@code warmpool_warmth_window_seconds{level,edge}}; and the passes' own time,
 * {@code warmpool_reconcile_pass_seconds}.
 */
@ApplicationScoped
public class PoolMetrics {
    private static final Logger LOG = Logger.getLogger(PoolMetrics.class);
    /** Scrapes closer together than this share one read. */
    static final Duration MIN_READ_INTERVAL = Duration.ofSeconds(1);
    /** A scrape waits at most this long for the read; then it shows the previous one. */
    static final Duration READ_TIMEOUT = Duration.ofSeconds(2);

    private final MeterRegistry registry;
    private final PoolStore store;
    private final Warmth.Params params;
    private final Map<String, StatsReply.Pool> latest = new ConcurrentHashMap<>();
    private final Map<String, List<Meter>> meters = new ConcurrentHashMap<>();
    /** One per pool, kept: a MultiGauge built anew each pass would leave its first rows' values in the registry. */
    private final Map<String, MultiGauge> windows = new ConcurrentHashMap<>();

    private final Timer passes;
    private final TenantMetrics tenants;
    private Uni<Void> reading;
    private long readStarted;

    public PoolMetrics(MeterRegistry registry, PoolStore store, WarmpoolConfig config) {
        this.registry = registry;
        this.store = store;
        this.params = WarmthParams.of(config);
        this.tenants = new TenantMetrics(registry);
        this.passes = Timer.builder("warmpool.reconcile.pass")
                .description("Reconcile passes that ran (this manager held the lock)")
                .register(registry);
    }

    /** Every pool's counts as the latest read left them (Timings reads them too). */
    Map<String, StatsReply.Pool> latest() {
        return latest;
    }

    /**
     * Reads every pool's counts, unless a read started less than {@link #MIN_READ_INTERVAL} ago
     * (then its result is shared). Never fails: on an error or a slow Redis the previous figures stay.
     */
    public synchronized Uni<Void> refresh() {
        long now = System.nanoTime();
        if (reading == null || now - readStarted >= MIN_READ_INTERVAL.toNanos()) {
            readStarted = now;
            reading = read().ifNoItem()
                    .after(READ_TIMEOUT)
                    .fail()
                    .onFailure()
                    .invoke(e -> LOG.debugf("metrics read failed, the previous figures stay: %s", e.toString()))
                    .onFailure()
                    .recoverWithNull()
                    .replaceWithVoid()
                    .memoize()
                    .indefinitely();
        }
        return reading;
    }

    private Uni<Void> read() {
        return store.types()
                .flatMap(types -> {
                    if (types.isEmpty()) {
                        return Uni.createFrom().item(List.<Object>of());
                    }
                    List<Uni<Object>> reads = types.stream()
                            .map(t -> Uni.combine()
                                    .all()
                                    .unis(store.stats(t), store.tenants(t))
                                    .asTuple()
                                    .map(r -> {
                                        if (r.getItem2() instanceof TenantsReply.Tenants ts) {
                                            tenants.update(t, ts.tenants());
                                        }
                                        return (Object) Map.entry(t, r.getItem1());
                                    }))
                            .toList();
                    return Uni.join().all(reads).andFailFast();
                })
                .invoke(rows -> {
                    Set<String> seen = new HashSet<>();
                    for (Object row : rows) {
                        @SuppressWarnings("unchecked")
                        Map.Entry<String, StatsReply> e = (Map.Entry<String, StatsReply>) row;
                        if (e.getValue() instanceof StatsReply.Pool p) {
                            seen.add(e.getKey());
                            latest.put(e.getKey(), p);
                            meters.computeIfAbsent(e.getKey(), this::register);
                        }
                    }
                    for (String gone : new ArrayList<>(latest.keySet())) {
                        if (!seen.contains(gone)) {
                            latest.remove(gone);
                            tenants.removed(gone);
                            List<Meter> m = meters.remove(gone);
                            if (m != null) {
                                m.forEach(registry::remove);
                            }
                        }
                    }
                })
                .replaceWithVoid();
    }

    /** A reconcile pass saw the pool: the learned windows it chose. */
    public void saw(PoolSnapshot s) {
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        if (s.spec().learned()) {
            for (Warmth.Window w : Warmth.windows(
                    s.warmth(), s.spec().maxSize(), params, s.spec().idleTimeoutSeconds() * 1000L)) {
                if (w.trusted() && w.keepAliveMs() >= 0) {
                    Tags t = Tags.of("level", Integer.toString(w.level()));
                    rows.add(MultiGauge.Row.of(t.and("edge", "prewarm"), w.prewarmMs() / 1000.0));
                    rows.add(MultiGauge.Row.of(t.and("edge", "keepAlive"), w.keepAliveMs() / 1000.0));
                }
            }
        }
        windows.computeIfAbsent(
                        s.type(),
                        type -> MultiGauge.builder("warmpool.warmth.window.seconds")
                                .tag("pool", type)
                                .description(
                                        "The learned keep-alive's window per demand level: a processor is wanted from prewarm to keepAlive seconds after the level was left")
                                .register(registry))
                .register(rows, true);
    }

    /** A reconcile pass that ran took this long: {@code warmpool_reconcile_pass_seconds}. */
    public void pass(long nanos) {
        passes.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** The reconciler removed the pool. */
    public void removed(String type) {
        MultiGauge w = windows.remove(type);
        if (w != null) {
            w.register(List.of(), true); // its rows leave the registry
        }
    }

    private List<Meter> register(String type) {
        List<Meter> out = new ArrayList<>();
        for (String state : List.of("starting", "idle", "busy", "draining")) {
            out.add(Gauge.builder(
                            "warmpool.pool.processors",
                            latest,
                            m -> of(m, type) == null
                                    ? 0
                                    : of(m, type).processors().get(state))
                    .tag("pool", type)
                    .tag("state", state)
                    .description("The pool's processors by state")
                    .register(registry));
        }
        out.add(Gauge.builder(
                        "warmpool.pool.queued.jobs",
                        latest,
                        m -> of(m, type) == null ? 0 : of(m, type).queued())
                .tag("pool", type)
                .description("Jobs waiting in the pool's queue")
                .register(registry));
        out.add(FunctionCounter.builder(
                        "warmpool.jobs.submitted",
                        latest,
                        m -> of(m, type) == null
                                ? 0
                                : of(m, type).warm() + of(m, type).cold())
                .tag("pool", type)
                .description("Jobs submitted to the pool (sweep trials as they are released)")
                .register(registry));
        for (String state : StatsReply.ENDS) {
            out.add(FunctionCounter.builder(
                            "warmpool.jobs.finished",
                            latest,
                            m -> of(m, type) == null ? 0 : of(m, type).ended().get(state))
                    .tag("pool", type)
                    .tag("state", state)
                    .description("Jobs of the pool that ended, by end state")
                    .register(registry));
        }
        out.add(FunctionCounter.builder(
                        "warmpool.idle.processor.seconds",
                        latest,
                        m -> of(m, type) == null
                                ? 0
                                : (of(m, type).idleMs() + of(m, type).idleNowMs()) / 1000.0)
                .tag("pool", type)
                .description("Time processors of the pool spent idle (warm, no job)")
                .register(registry));
        out.add(FunctionCounter.builder(
                        "warmpool.warm.starts",
                        latest,
                        m -> of(m, type) == null ? 0 : of(m, type).warm())
                .tag("pool", type)
                .description("Jobs that found a warm processor")
                .register(registry));
        out.add(FunctionCounter.builder(
                        "warmpool.cold.starts",
                        latest,
                        m -> of(m, type) == null ? 0 : of(m, type).cold())
                .tag("pool", type)
                .description("Jobs that found no warm processor and waited for one")
                .register(registry));
        out.add(FunctionCounter.builder(
                        "warmpool.sweep.trial.busy.seconds",
                        latest,
                        m -> of(m, type) == null ? 0 : of(m, type).sweepBusyMs() / 1000.0)
                .tag("pool", type)
                .description("Time sweep trials of the pool ran, started to end, counted as each ends"
                        + " (each sweep's own: its cost.busySeconds)")
                .register(registry));
        return out;
    }

    private static StatsReply.Pool of(Map<String, StatsReply.Pool> m, String type) {
        return m.get(type);
    }
}
