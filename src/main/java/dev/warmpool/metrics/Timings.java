package dev.warmpool.metrics;

import dev.warmpool.protocol.script.StatsReply;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.prometheus.client.Collector;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code warmpool_job_queue_wait_seconds{pool}} and {@code warmpool_job_run_seconds{pool}} as
 * Prometheus histograms. Their buckets are counted in Redis by the scripts that start and end
 * jobs (lib/warmth.lua's observe), so no manager has to see a job for it to count; Micrometer's
 * histograms take observations, not counts kept elsewhere, so these are a collector of the
 * Prometheus registry, reading what {@link PoolMetrics}'s latest read found.
 */
@ApplicationScoped
public class Timings extends Collector {
    private final PoolMetrics metrics;

    public Timings(PoolMetrics metrics) {
        this.metrics = metrics;
    }

    void register(@Observes StartupEvent start, Instance<PrometheusMeterRegistry> prometheus) {
        prometheus.forEach(r -> r.getPrometheusRegistry().register(this)); // none when the Prometheus registry is off
    }

    @Override
    public List<MetricFamilySamples> collect() {
        Map<String, StatsReply.Pool> pools = metrics.latest();
        return List.of(
                family(
                        "warmpool_job_queue_wait_seconds",
                        "How long jobs waited in the queue before they started (since stored, released or requeued)",
                        pools,
                        true),
                family(
                        "warmpool_job_run_seconds",
                        "How long jobs ran, from start to end (jobs that ended while running)",
                        pools,
                        false));
    }

    static MetricFamilySamples family(String name, String help, Map<String, StatsReply.Pool> pools, boolean wait) {
        List<MetricFamilySamples.Sample> samples = new ArrayList<>();
        List<String> labels = List.of("pool", "le");
        pools.forEach((type, p) -> {
            StatsReply.Histogram h = wait ? p.queueWait() : p.run();
            long cumulative = 0;
            for (int i = 0; i < StatsReply.BOUNDS_MS.size(); i++) {
                cumulative += h.buckets()[i];
                samples.add(new MetricFamilySamples.Sample(
                        name + "_bucket",
                        labels,
                        List.of(type, Collector.doubleToGoString(StatsReply.BOUNDS_MS.get(i) / 1000.0)),
                        cumulative));
            }
            samples.add(new MetricFamilySamples.Sample(name + "_bucket", labels, List.of(type, "+Inf"), h.count()));
            samples.add(new MetricFamilySamples.Sample(name + "_count", List.of("pool"), List.of(type), h.count()));
            samples.add(
                    new MetricFamilySamples.Sample(name + "_sum", List.of("pool"), List.of(type), h.sumMs() / 1000.0));
        });
        return new MetricFamilySamples(name, Type.HISTOGRAM, help, samples);
    }
}
