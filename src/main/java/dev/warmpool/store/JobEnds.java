package dev.warmpool.store;

import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.protocol.KeySchema;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.redis.datasource.pubsub.ReactivePubSubCommands;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * Wakes whoever waits for a job's end: the script that ends a job publishes its id on its pool's
 * {@link KeySchema#ended} channel, and this manager holds one pattern subscription to all of
 * them (one connection of its own, whatever the number of waiters). It also wakes whoever
 * follows a job's events ({@link #watchChange}) on that channel and on {@link KeySchema#changed}
 * (the job started, logged, reported, or went back to its queue). A waiter registers first and
 * reads the job after, so an end between the two is not missed; a message lost while the
 * subscription reconnects is covered by the waiter's own slow re-read ({@code ?wait=} re-reads
 * the job at least every second).
 *
 * <p>The handler only completes futures: it runs on the Redis client's event loop and must not
 * block it, nor run a waiter's continuation there in a way that could (they are reactive calls).
 */
@ApplicationScoped
public class JobEnds {
    private static final Logger LOG = Logger.getLogger(JobEnds.class);
    private static final Duration RETRY = Duration.ofSeconds(1);

    private final ReactivePubSubCommands<String> pubsub;
    private final ConcurrentHashMap<String, Set<CompletableFuture<Void>>> waiters = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Set<CompletableFuture<Void>>> followers = new ConcurrentHashMap<>();
    private static final java.util.List<String> PATTERNS =
            java.util.List.of(KeySchema.ENDED_PATTERN, KeySchema.CHANGED_PATTERN);
    private final AtomicBoolean stopping = new AtomicBoolean();
    private volatile boolean subscribed;

    private final boolean enabled;

    public JobEnds(ReactiveRedisDataSource redis, WarmpoolConfig config) {
        this.pubsub = redis.pubsub(String.class);
        this.enabled = config.jobs().wakeOnEnd();
    }

    void start(@Observes StartupEvent ev) {
        if (enabled) {
            subscribe();
        }
    }

    void stop(@Observes ShutdownEvent ev) {
        stopping.set(true);
    }

    private void subscribe() {
        if (stopping.get()) {
            return;
        }
        pubsub.subscribeToPatterns(PATTERNS, this::on, this::lost, e -> lost())
                .subscribe()
                .with(
                        s -> {
                            subscribed = true;
                            LOG.debugf("subscribed to %s", PATTERNS);
                        },
                        e -> {
                            LOG.debugf(
                                    "could not subscribe to %s (%s); trying again in %s",
                                    PATTERNS, e.getMessage(), RETRY);
                            lost();
                        });
    }

    /** The subscription ended (Redis restarted, the connection broke): waiters re-read on their own until it is back. */
    private void lost() {
        subscribed = false;
        if (!stopping.get()) {
            Uni.createFrom()
                    .voidItem()
                    .onItem()
                    .delayIt()
                    .by(RETRY)
                    .subscribe()
                    .with(x -> subscribe(), e -> subscribe());
        }
    }

    /** Whether the subscription is live (waiters then need no frequent re-reads). */
    public boolean live() {
        return subscribed;
    }

    /** Registers a waiter for {@code jobId}'s end; its future completes when the job's end is published. */
    public CompletableFuture<Void> watch(String jobId) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        waiters.computeIfAbsent(jobId, k -> ConcurrentHashMap.newKeySet()).add(f);
        return f;
    }

    /** Registers a follower of {@code jobId}; its future completes on the job's next change or end. */
    public CompletableFuture<Void> watchChange(String jobId) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        followers.computeIfAbsent(jobId, k -> ConcurrentHashMap.newKeySet()).add(f);
        return f;
    }

    /** Drops a waiter (or follower) that no longer waits (the job had ended, or the wait timed out). */
    public void forget(String jobId, CompletableFuture<Void> f) {
        for (ConcurrentHashMap<String, Set<CompletableFuture<Void>>> map : java.util.List.of(waiters, followers)) {
            map.computeIfPresent(jobId, (k, set) -> {
                set.remove(f);
                return set.isEmpty() ? null : set;
            });
        }
    }

    /** How many jobs have waiters or followers (a leak shows here). */
    public int watched() {
        return waiters.size() + followers.size();
    }

    private void on(String channel, String jobId) {
        if (channel.endsWith(":ended")) {
            wake(waiters, jobId);
        }
        wake(followers, jobId);
        String sweep = dev.warmpool.pool.Ids.sweepOfTrial(jobId);
        if (sweep != null) {
            wake(followers, sweep); // a trial's change is its sweep's
        }
    }

    private static void wake(ConcurrentHashMap<String, Set<CompletableFuture<Void>>> map, String jobId) {
        Set<CompletableFuture<Void>> set = map.remove(jobId);
        if (set != null) {
            set.forEach(f -> f.complete(null));
        }
    }
}
