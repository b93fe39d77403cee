package dev.warmpool.service;

import dev.warmpool.config.WarmpoolConfig;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How many jobs each caller may submit: a token bucket per caller, refilled at
 * {@code warmpool.limits.submits-per-second} up to {@code submit-burst}, so one runaway notebook
 * cannot fill every queue while the others wait. Per manager replica, in memory: a limit on
 * load, not an accounting (a restart forgives).
 */
@ApplicationScoped
public class SubmitLimiter {
    private final double rate;
    private final double burst;
    private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();

    public SubmitLimiter(WarmpoolConfig config) {
        this.rate = config.limits().submitsPerSecond();
        this.burst = config.limits().submitBurst();
    }

    /** Takes {@code jobs} from the caller's bucket, or refuses with 429 saying when to retry. */
    public void take(Caller caller, int jobs) {
        long now = System.nanoTime();
        Bucket b = buckets.computeIfAbsent(caller.name(), k -> new Bucket(burst, now));
        double wait;
        synchronized (b) {
            b.tokens = Math.min(burst, b.tokens + (now - b.at) / 1e9 * rate);
            b.at = now;
            if (b.tokens >= jobs) {
                b.tokens -= jobs;
                return;
            }
            wait = (Math.min(jobs, burst) - b.tokens) / rate;
        }
        int seconds = (int) Math.max(1, Math.ceil(wait));
        throw new Refusal(
                        Refusal.Kind.TOO_MANY,
                        "rate-limited",
                        "Too many requests",
                        "'" + caller.name() + "' submits more than "
                                + fmt(rate) + " jobs a second (warmpool.limits.submits-per-second, bursts of "
                                + (long) burst
                                + "); retry in " + seconds + " s.")
                .retryAfter(seconds)
                .with("jobs", jobs);
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    private static final class Bucket {
        double tokens;
        long at;

        Bucket(double tokens, long at) {
            this.tokens = tokens;
            this.at = at;
        }
    }
}
