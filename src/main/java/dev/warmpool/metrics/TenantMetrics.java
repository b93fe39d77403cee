package dev.warmpool.metrics;

import dev.warmpool.protocol.script.TenantsReply;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * Per pool and tenant (fair share, docs/fair-share.md), read with the pool's counts on each scrape
 * (tenants.lua): {@code warmpool_tenant_running{pool,tenant}}, {@code warmpool_tenant_queued{pool,tenant}}
 * and {@code warmpool_tenant_usage_seconds_total{pool,tenant}} (processor-seconds its jobs held, never
 * decayed: the share's decayed usage is on {@code GET /pools/{type}}); its sweeps' cost,
 * {@code warmpool_tenant_sweep_busy_seconds_total}, {@code warmpool_tenant_sweep_cold_starts_total} and
 * {@code warmpool_tenant_sweep_idle_seconds_total}.
 */
final class TenantMetrics {
    private final MeterRegistry registry;
    /** "pool\ntenant" -> the latest row. */
    private final Map<String, TenantsReply.Tenant> latest = new ConcurrentHashMap<>();

    private final Map<String, List<Meter>> meters = new ConcurrentHashMap<>();

    TenantMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The pool's tenants as just read; tenants it no longer has leave the registry. */
    void update(String pool, List<TenantsReply.Tenant> tenants) {
        Set<String> seen = new HashSet<>();
        for (TenantsReply.Tenant t : tenants) {
            String k = pool + "\n" + t.tenant();
            seen.add(k);
            latest.put(k, t);
            meters.computeIfAbsent(k, x -> register(k, pool, t.tenant()));
        }
        for (String k : new ArrayList<>(latest.keySet())) {
            if (k.startsWith(pool + "\n") && !seen.contains(k)) {
                forget(k);
            }
        }
    }

    /** The pool is gone: its tenants' series go with it. */
    void removed(String pool) {
        for (String k : new ArrayList<>(latest.keySet())) {
            if (k.startsWith(pool + "\n")) {
                forget(k);
            }
        }
    }

    private void forget(String k) {
        latest.remove(k);
        List<Meter> m = meters.remove(k);
        if (m != null) {
            m.forEach(registry::remove);
        }
    }

    private List<Meter> register(String k, String pool, String tenant) {
        return List.of(
                Gauge.builder("warmpool.tenant.running", latest, read(k, TenantsReply.Tenant::running))
                        .tags("pool", pool, "tenant", tenant)
                        .description("The tenant's jobs holding a processor of the pool")
                        .register(registry),
                Gauge.builder("warmpool.tenant.queued", latest, read(k, TenantsReply.Tenant::queued))
                        .tags("pool", pool, "tenant", tenant)
                        .description("The tenant's jobs waiting in the pool's queue")
                        .register(registry),
                counter(
                        k,
                        pool,
                        tenant,
                        "warmpool.tenant.usage.seconds",
                        TenantsReply.Tenant::secondsTotal,
                        "Processor-seconds the tenant's jobs held in the pool (not decayed)"),
                counter(
                        k,
                        pool,
                        tenant,
                        "warmpool.tenant.sweep.busy.seconds",
                        TenantsReply.Tenant::sweepSeconds,
                        "The run time of the tenant's sweep trials in the pool (their sweeps' busySeconds)"),
                counter(
                        k,
                        pool,
                        tenant,
                        "warmpool.tenant.sweep.cold.starts",
                        TenantsReply.Tenant::sweepColdStarts,
                        "Processor starts the tenant's sweep trials in the pool waited for"),
                counter(
                        k,
                        pool,
                        tenant,
                        "warmpool.tenant.sweep.idle.seconds",
                        TenantsReply.Tenant::sweepIdleSeconds,
                        "Idle processor-seconds the pool held for the tenant's sweeps between their trials"));
    }

    /** A counter of the tenant's latest row's {@code figure}. */
    private FunctionCounter counter(
            String k,
            String pool,
            String tenant,
            String name,
            ToDoubleFunction<TenantsReply.Tenant> figure,
            String what) {
        return FunctionCounter.builder(name, latest, read(k, figure))
                .tags("pool", pool, "tenant", tenant)
                .description(what)
                .register(registry);
    }

    /** One figure of the tenant's latest row, 0 once the row is gone. */
    private static ToDoubleFunction<Map<String, TenantsReply.Tenant>> read(
            String k, ToDoubleFunction<TenantsReply.Tenant> figure) {
        return m -> {
            TenantsReply.Tenant t = m.get(k);
            return t == null ? 0 : figure.applyAsDouble(t);
        };
    }
}
