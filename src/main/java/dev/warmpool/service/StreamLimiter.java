package dev.warmpool.service;

import dev.warmpool.config.WarmpoolConfig;
import io.smallrye.mutiny.Multi;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * How many event streams each caller holds open on this replica, at most
 * {@code warmpool.connections.streams-per-caller}: a stream holds a connection and a Redis
 * subscription for as long as its reader likes, so one token could otherwise hold thousands.
 */
@ApplicationScoped
public class StreamLimiter {
    private final ConcurrentHashMap<String, Integer> open = new ConcurrentHashMap<>();
    private final int perCaller;

    public StreamLimiter(WarmpoolConfig config) {
        this.perCaller = config.connections().streamsPerCaller();
    }

    /**
     * The stream {@code stream} makes, counted as {@code caller}'s until it ends, fails or its
     * reader goes away; 429 (and nothing made) when the caller holds its limit already.
     */
    public <T> Multi<T> held(Caller caller, Supplier<Multi<T>> stream) {
        take(caller);
        AtomicBoolean released = new AtomicBoolean();
        Runnable release = () -> {
            if (released.compareAndSet(false, true)) {
                open.computeIfPresent(caller.name(), (name, n) -> n <= 1 ? null : n - 1);
            }
        };
        try {
            return stream.get().onTermination().invoke(release);
        } catch (RuntimeException e) {
            release.run();
            throw e;
        }
    }

    /** How many streams {@code caller} holds now. */
    public int openBy(String caller) {
        return open.getOrDefault(caller, 0);
    }

    private void take(Caller caller) {
        boolean[] full = {false};
        open.compute(caller.name(), (name, n) -> {
            int now = n == null ? 0 : n;
            full[0] = now >= perCaller;
            return full[0] ? n : now + 1;
        });
        if (full[0]) {
            throw new Refusal(
                            Refusal.Kind.TOO_MANY,
                            "too-many-streams",
                            "Too many requests",
                            "'" + caller.name() + "' holds "
                                    + perCaller
                                    + " event streams open on this manager, its limit (warmpool.connections.streams-per-caller); "
                                    + "close one (a dashboard tab, a followed job or sweep) and retry.")
                    .with("limit", perCaller)
                    .retryAfter(5);
        }
    }
}
