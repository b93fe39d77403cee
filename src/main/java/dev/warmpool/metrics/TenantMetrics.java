package dev.warmpool.metrics;

import dev.warmpool.protocol.TenantsReply;
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

/**
 * Per pool and tenant (fair share, docs/fair-share.md), read with the pool's counts on each scrape
 * (tenants.lua): {@code warmpool_tenant_running{pool,tenant}}, {@code warmpool_tenant_queued{pool,tenant}}
 * and {@code warmpool_tenant_usage_seconds_total{pool,tenant}} (processor-seconds its jobs held, never
 * decayed: the share's decayed usage is on {@code GET /pools/{type}}).
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
        List<Meter> out = new ArrayList<>();
        out.add(Gauge.builder(
                        "warmpool.tenant.running",
                        latest,
                        m -> m.containsKey(k) ? m.get(k).running() : 0)
                .tags("pool", pool, "tenant", tenant)
                .description("The tenant's jobs holding a processor of the pool")
                .register(registry));
        out.add(Gauge.builder(
                        "warmpool.tenant.queued",
                        latest,
                        m -> m.containsKey(k) ? m.get(k).queued() : 0)
                .tags("pool", pool, "tenant", tenant)
                .description("The tenant's jobs waiting in the pool's queue")
                .register(registry));
        out.add(FunctionCounter.builder(
                        "warmpool.tenant.usage.seconds",
                        latest,
                        m -> m.containsKey(k) ? m.get(k).secondsTotal() : 0)
                .tags("pool", pool, "tenant", tenant)
                .description("Processor-seconds the tenant's jobs held in the pool (not decayed)")
                .register(registry));
        return out;
    }
}
