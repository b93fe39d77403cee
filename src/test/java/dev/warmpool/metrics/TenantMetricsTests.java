package dev.warmpool.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.warmpool.protocol.script.TenantsReply.Tenant;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The per-tenant series follow each scrape's read: values, tenants that leave, pools that go. */
@Tag("unit")
class TenantMetricsTests {
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final TenantMetrics metrics = new TenantMetrics(registry);

    static Tenant tenant(String name, int running, int queued, double secondsTotal) {
        return new Tenant(
                name,
                1,
                null,
                running,
                queued,
                secondsTotal / 2,
                0.5,
                secondsTotal,
                secondsTotal / 4,
                queued / 10,
                secondsTotal / 8);
    }

    Gauge gauge(String name, String pool, String tenant) {
        return registry.find(name).tags("pool", pool, "tenant", tenant).gauge();
    }

    FunctionCounter counter(String pool, String tenant) {
        return counter("warmpool.tenant.usage.seconds", pool, tenant);
    }

    FunctionCounter counter(String name, String pool, String tenant) {
        return registry.find(name).tags("pool", pool, "tenant", tenant).functionCounter();
    }

    @Test
    void eachTenantsSeriesShowTheLatestReadAndLeaveWithTheTenantOrThePool() {
        metrics.update("train", List.of(tenant("alice", 3, 40, 120), tenant("bob", 1, 2, 8)));
        metrics.update("eval", List.of(tenant("alice", 1, 0, 5)));
        assertEquals(3, gauge("warmpool.tenant.running", "train", "alice").value());
        assertEquals(40, gauge("warmpool.tenant.queued", "train", "alice").value());
        assertEquals(120, counter("train", "alice").count());
        assertEquals(
                30,
                counter("warmpool.tenant.sweep.busy.seconds", "train", "alice").count(),
                "its sweeps' cost");
        assertEquals(
                4,
                counter("warmpool.tenant.sweep.cold.starts", "train", "alice").count());
        assertEquals(
                15,
                counter("warmpool.tenant.sweep.idle.seconds", "train", "alice").count());
        assertEquals(2, gauge("warmpool.tenant.queued", "train", "bob").value());
        assertEquals(1, gauge("warmpool.tenant.running", "eval", "alice").value(), "one series per pool and tenant");

        metrics.update("train", List.of(tenant("alice", 4, 39, 121)));
        assertEquals(4, gauge("warmpool.tenant.running", "train", "alice").value(), "the next read replaces the last");
        assertEquals(121, counter("train", "alice").count());
        assertNull(gauge("warmpool.tenant.running", "train", "bob"), "a tenant the pool no longer has leaves");
        assertNull(counter("train", "bob"));
        assertNull(counter("warmpool.tenant.sweep.busy.seconds", "train", "bob"));

        metrics.removed("train");
        assertNull(gauge("warmpool.tenant.queued", "train", "alice"), "a deleted pool's tenants leave");
        assertEquals(1, gauge("warmpool.tenant.running", "eval", "alice").value(), "another pool's stay");
    }
}
