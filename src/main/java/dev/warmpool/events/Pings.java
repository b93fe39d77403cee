package dev.warmpool.events;

import dev.warmpool.service.ReconcilerPort;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The reconcile passes that Knative pings ask for. A ping needs no token (a PingSource sends
 * none) and a pass costs the manager a full read of every pool (about 140 ms), so pings are
 * coalesced to at most one pass a {@link #GAP}: a ping that comes while a pass runs, or within a
 * second of one, gets the next pass's report, shared with every other such ping. A PingSource
 * pings once a minute; the bound is for anyone else who can reach the port.
 * {@code warmpool_ping_passes_total} counts the passes, {@code warmpool_pings_total} the pings.
 */
@ApplicationScoped
@Startup // its meters read 0 from the start, not absent until the first ping
public class Pings {
    static final Duration GAP = Duration.ofSeconds(1);

    private final Coalesced<ReconcilerPort.Report> passes;
    private final AtomicLong pings = new AtomicLong();

    public Pings(ReconcilerPort reconciler, MeterRegistry registry) {
        this.passes = new Coalesced<>(
                reconciler::reconcileOnce,
                GAP.toNanos(),
                System::nanoTime,
                (delay, task) -> CompletableFuture.delayedExecutor(
                                delay, TimeUnit.NANOSECONDS, Infrastructure.getDefaultWorkerPool())
                        .execute(task));
        FunctionCounter.builder("warmpool.ping.passes", passes, Coalesced::runs)
                .description("Reconcile passes that Knative pings ran (at most one a second)")
                .register(registry);
        FunctionCounter.builder("warmpool.pings", pings, AtomicLong::get)
                .description("Knative pings received")
                .register(registry);
    }

    /** The report of a pass that starts after this call (the pass runs on a worker thread). */
    public Uni<ReconcilerPort.Report> pass() {
        pings.incrementAndGet();
        return Uni.createFrom().completionStage(passes.request());
    }
}
