package dev.warmpool.service;

import dev.warmpool.store.PoolStore;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * Looks at every driver job that feeds a running sweep (each pool's {@code wp:{type}:drivers}) every
 * {@code warmpool.sweeps.driver-check} and ends the sweeps whose driver has ended or is gone: such a
 * sweep waits for trials nobody will add, and nobody may be reading it (a study started by a CloudEvent).
 * The driver runs in a pool of its own, so its end cannot end its sweep in the same script (another
 * pool's keys); this pass closes the gap within one interval, whether or not the sweep is read.
 */
@ApplicationScoped
public class DriverWatch {
    private static final Logger LOG = Logger.getLogger(DriverWatch.class);

    private final PoolStore store;
    private final SweepService sweeps;

    public DriverWatch(PoolStore store, SweepService sweeps) {
        this.store = store;
        this.sweeps = sweeps;
    }

    @Scheduled(
            every = "${warmpool.sweeps.driver-check}",
            delayed = "5s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> check() {
        return store.types()
                .onItem()
                .transformToMulti(types -> Multi.createFrom().iterable(types))
                .onItem()
                .transformToUniAndConcatenate(this::checkPool)
                .collect()
                .last()
                .replaceWithVoid()
                .onFailure()
                .recoverWithItem(e -> {
                    // the next look starts from what is there
                    LOG.debugf("the look at sweep drivers failed: %s", e.getMessage());
                    return null;
                });
    }

    /** One pool's driven sweeps, one after another. */
    private Uni<Void> checkPool(String type) {
        return store.sweepDrivers(type)
                .onItem()
                .transformToMulti(drivers -> Multi.createFrom().iterable(drivers.entrySet()))
                .onItem()
                .transformToUniAndConcatenate((Map.Entry<String, String> d) -> Uni.createFrom()
                        .deferred(() -> sweeps.endIfDriverEnded(type, d.getKey(), d.getValue()))
                        .invoke(ended -> {
                            if (ended) {
                                LOG.infof(
                                        "sweep %s ended: its driver job %s had ended or was gone",
                                        d.getKey(), d.getValue());
                            }
                        }))
                .collect()
                .last()
                .replaceWithVoid();
    }
}
