package dev.warmpool.service;

import dev.warmpool.store.KeySchema;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Wakes the requests that wait for a job to end ({@code ?wait=}): the scripts that end a job
 * publish its id on {@code wp:{type}:ends}, and one pattern subscription serves every waiter.
 * A waiter also gives up after a pause and looks again, so a message lost while the
 * subscription reconnects costs a pause, never an answer.
 */
@ApplicationScoped
public class JobEnds {
    private static final Logger LOG = Logger.getLogger(JobEnds.class);

    private final ReactiveRedisDataSource redis;
    private final Map<String, Set<CompletableFuture<Void>>> waiters = new ConcurrentHashMap<>();

    public JobEnds(ReactiveRedisDataSource redis) {
        this.redis = redis;
    }

    void subscribe(@Observes StartupEvent ev) {
        redis.pubsub(String.class).subscribeToPattern(KeySchema.ENDS_PATTERN, (channel, jobId) -> wake(jobId),
                        () -> LOG.debug("job-end subscription ended"), e -> LOG.debugf("job-end subscription: %s", e.getMessage()))
                .subscribe().with(s -> LOG.debug("subscribed to job ends"),
                        e -> LOG.warnf("no job-end subscription (waits fall back to polling): %s", e.getMessage()));
    }

    /** Listening for one job's end, from the moment {@link #listen} was called. */
    public final class Listener {
        private final String jobId;
        private final CompletableFuture<Void> ended = new CompletableFuture<>();

        private Listener(String jobId) {
            this.jobId = jobId;
            waiters.computeIfAbsent(jobId, k -> ConcurrentHashMap.newKeySet()).add(ended);
        }

        /** Completes when the job ends or {@code pause} passes, whichever comes first; then stops listening. */
        public Uni<Void> endOrPause(Duration pause) {
            return Uni.createFrom().completionStage(ended)
                    .ifNoItem().after(pause).recoverWithItem((Void) null)
                    .onTermination().invoke(this::stop);
        }

        public void stop() {
            forget(jobId, ended);
        }
    }

    /** Starts listening for the end of {@code jobId}: call it before reading the job, so no end slips between. */
    public Listener listen(String jobId) {
        return new Listener(jobId);
    }

    private void wake(String jobId) {
        Set<CompletableFuture<Void>> set = waiters.remove(jobId);
        if (set != null) {
            set.forEach(f -> f.complete(null));
        }
    }

    private void forget(String jobId, CompletableFuture<Void> f) {
        waiters.computeIfPresent(jobId, (k, set) -> {
            set.remove(f);
            return set.isEmpty() ? null : set;
        });
    }
}
