package dev.warmpool.service;

import dev.warmpool.protocol.Fields.SweepHash;
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
 * pool's keys); this pass closes the gap within one interval, whether or not the sweep is read. Its
 * first pass after the manager starts also enters running sweeps an older build stored without an entry.
 */
@ApplicationScoped
public class DriverWatch {
    private static final Logger LOG = Logger.getLogger(DriverWatch.class);
    /** The running sweeps an older build left without an entry: the newest this many of each pool. */
    private static final int BACKFILL = 1000;

    private final PoolStore store;
    private final SweepService sweeps;
    private volatile boolean backfilled;

    public DriverWatch(PoolStore store, SweepService sweeps) {
        this.store = store;
        this.sweeps = sweeps;
    }

    @Scheduled(
            every = "${warmpool.sweeps.driver-check}",
            delayed = "5s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> check() {
        boolean backfill = !backfilled;
        return store.types()
                .onItem()
                .transformToMulti(types -> Multi.createFrom().iterable(types))
                .onItem()
                .transformToUniAndConcatenate(type -> (backfill
                                ? backfill(type)
                                : Uni.createFrom().voidItem())
                        .flatMap(x -> checkPool(type))
                        .onFailure()
                        .recoverWithItem(e -> {
                            // one pool's failure does not stop the others'; the next pass looks again
                            LOG.warnf("the look at pool %s's sweep drivers failed: %s", type, e.getMessage());
                            return null;
                        }))
                .collect()
                .last()
                .invoke(x -> backfilled = true)
                .replaceWithVoid()
                .onFailure()
                .recoverWithItem(e -> {
                    LOG.warnf("the look at sweep drivers failed: %s", e.getMessage());
                    return null;
                });
    }

    /** One pool's driven sweeps, one after another; a failure on one does not stop the rest. */
    private Uni<Void> checkPool(String type) {
        return store.sweepDrivers(type)
                .onItem()
                .transformToMulti(drivers -> Multi.createFrom().iterable(drivers.entrySet()))
                .onItem()
                .transformToUniAndConcatenate((Map.Entry<String, String> d) -> sweeps.endIfDriverEnded(
                                type, d.getKey(), d.getValue())
                        .invoke(ended -> {
                            if (ended) {
                                LOG.infof(
                                        "sweep %s ended: its driver job %s had ended or was gone",
                                        d.getKey(), d.getValue());
                            }
                        })
                        .onFailure()
                        .recoverWithItem(e -> {
                            LOG.warnf(
                                    "could not look at sweep %s's driver %s: %s",
                                    d.getKey(), d.getValue(), e.getMessage());
                            return false;
                        }))
                .collect()
                .last()
                .replaceWithVoid();
    }

    /** Enters the pool's running sweeps that name a driver but have no entry (stored by an older build). */
    private Uni<Void> backfill(String type) {
        return store.sweeps(type, BACKFILL)
                .onItem()
                .transformToMulti(hs -> Multi.createFrom().iterable(hs))
                .select()
                .where(h -> "RUNNING".equals(h.get(SweepHash.STATE))
                        && h.get(SweepHash.DRIVER) != null
                        && !h.get(SweepHash.DRIVER).isEmpty())
                .onItem()
                .transformToUniAndConcatenate(
                        h -> store.noteSweepDriver(type, h.get(SweepHash.ID), h.get(SweepHash.DRIVER)))
                .collect()
                .last()
                .replaceWithVoid();
    }
}
