package dev.warmpool.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.pool.Ids;
import dev.warmpool.pool.Job;
import dev.warmpool.protocol.KeySchema;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.redis.datasource.pubsub.ReactivePubSubCommands;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * <p>An end message carries the ended job (lua/lib/ends.lua's {@code ended_message}: the id, a
 * newline, the job's hash as a flat JSON array), so a waiter answers from it without reading the
 * job again; a message with the id alone (the job was too large to send so) wakes the waiter
 * with no job, and it reads the job.
 *
 * <p>The handler only completes futures: it runs on the Redis client's event loop and must not
 * block it, nor run a waiter's continuation there in a way that could (they are reactive calls).
 */
@ApplicationScoped
public class JobEnds {
    private static final Logger LOG = Logger.getLogger(JobEnds.class);
    private static final Duration RETRY = Duration.ofSeconds(1);

    private final ReactivePubSubCommands<String> pubsub;
    private final ConcurrentHashMap<String, Set<CompletableFuture<Job>>> waiters = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Set<CompletableFuture<Void>>> followers = new ConcurrentHashMap<>();
    private static final List<String> PATTERNS = List.of(KeySchema.ENDED_PATTERN, KeySchema.CHANGED_PATTERN);
    private final AtomicBoolean stopping = new AtomicBoolean();
    private volatile boolean subscribed;

    private final boolean enabled;
    private final ObjectMapper json;

    public JobEnds(ReactiveRedisDataSource redis, WarmpoolConfig config, ObjectMapper json) {
        this.pubsub = redis.pubsub(String.class);
        this.enabled = config.jobs().wakeOnEnd();
        this.json = json;
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

    /**
     * Registers a waiter for {@code jobId}'s end; its future completes when the job's end is
     * published, with the ended job as the message carried it, or null when it carried the id
     * alone (the waiter then reads the job).
     */
    public CompletableFuture<Job> watch(String jobId) {
        CompletableFuture<Job> f = new CompletableFuture<>();
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
    public void forget(String jobId, CompletableFuture<?> f) {
        forget(waiters, jobId, f);
        forget(followers, jobId, f);
    }

    private static <T> void forget(
            ConcurrentHashMap<String, Set<CompletableFuture<T>>> map, String jobId, CompletableFuture<?> f) {
        map.computeIfPresent(jobId, (k, set) -> {
            set.remove(f);
            return set.isEmpty() ? null : set;
        });
    }

    /** How many jobs have waiters or followers (a leak shows here). */
    public int watched() {
        return waiters.size() + followers.size();
    }

    private void on(String channel, String message) {
        int cut = message.indexOf('\n');
        String jobId = cut < 0 ? message : message.substring(0, cut);
        if (channel.endsWith(":ended")) {
            Set<CompletableFuture<Job>> set = waiters.remove(jobId);
            if (set != null) {
                Job ended = cut < 0 ? null : ended(jobId, message.substring(cut + 1));
                set.forEach(f -> f.complete(ended));
            }
        }
        wake(followers, jobId);
        String sweep = Ids.sweepOfTrial(jobId);
        if (sweep != null) {
            wake(followers, sweep); // a trial's change is its sweep's
        }
    }

    /**
     * The ended job an end message carries (its hash as a flat JSON array), read as
     * {@link PoolStore#job} reads the hash; null when it is not one (its waiters read the job).
     */
    Job ended(String jobId, String fields) {
        try {
            String[] flat = json.readValue(fields, String[].class);
            Map<String, String> hash = new LinkedHashMap<>();
            for (int i = 0; i + 1 < flat.length; i += 2) {
                hash.put(flat[i], flat[i + 1]);
            }
            return hash.isEmpty() ? null : Job.from(hash, json);
        } catch (IOException | RuntimeException e) {
            LOG.debugf("the end message of %s is not a job (%s); its waiters read it", jobId, e.getMessage());
            return null;
        }
    }

    private static void wake(ConcurrentHashMap<String, Set<CompletableFuture<Void>>> map, String jobId) {
        Set<CompletableFuture<Void>> set = map.remove(jobId);
        if (set != null) {
            set.forEach(f -> f.complete(null));
        }
    }
}
