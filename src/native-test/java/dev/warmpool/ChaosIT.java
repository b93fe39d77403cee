package dev.warmpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.protocol.JobState;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.runtime.local.LocalAgents;
import dev.warmpool.store.RedisServer;
import dev.warmpool.testing.Tokens;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The chaos run: a pool of 4 processors works through short jobs while agents are killed with
 * SIGKILL every 2 s, the manager is killed and restarted, and Redis (AOF on) is restarted.
 * Every accepted job must end, and end once. Small by default (CI); by hand:
 * {@code bench/chaos.sh 2000} for the full run, whose report goes to target/chaos-report.txt.
 */
class ChaosIT {
    static final int JOBS = Integer.getInteger("chaos.jobs", 150);
    static final int MANAGER_RESTARTS = Integer.getInteger("chaos.manager-restarts", 1);
    static final String POOL = "chaos";

    final Random random = new Random(7);
    final AtomicReference<ManagerProcess> manager = new AtomicReference<>();
    final List<Long> replaceTimes = new ArrayList<>();
    final ConcurrentLinkedQueue<String> accepted = new ConcurrentLinkedQueue<>();
    RedisServer redis;
    String url;
    int port;
    Path dir;
    volatile boolean redisDown;

    @AfterEach
    void cleanUp() throws InterruptedException {
        if (manager.get() != null) {
            manager.get().kill();
        }
        LocalAgents.killAll(url);
        redis.stop();
    }

    @Test
    void noJobIsLostAndNoneEndsTwiceUnderKillsAndRestarts() throws Exception {
        port = RedisServer.freePort();
        dir = Files.createTempDirectory(Path.of("target"), "chaos-redis");
        redis = RedisServer.persistent(port, dir);
        url = redis.url();
        manager.set(ManagerProcess.start(url, "chaos-manager"));
        manager.get()
                .send(
                        "PUT",
                        "/pools/" + POOL,
                        "{\"command\": [\"sleep\"], \"minIdle\": 4, \"maxSize\": 4, " + "\"maxQueued\": 100000}");
        long t0 = System.nanoTime();
        Thread submitter = new Thread(this::submitAll, "chaos-submitter");
        submitter.start();
        chaos(submitter);
        Map<String, Map<String, String>> jobs = awaitAllEnded(Math.max(120, JOBS / 10));
        String report = report(jobs, (System.nanoTime() - t0) / 1_000_000_000.0);
        System.out.println(report);
        Files.writeString(Path.of("target", "chaos-report.txt"), report);
        long lost = jobs.values().stream()
                .filter(j -> j.isEmpty() || !ended(j.get("state")))
                .count();
        long twice = jobs.values().stream()
                .filter(j -> Integer.parseInt(j.getOrDefault("completions", "0")) > 1)
                .count();
        assertEquals(JOBS, accepted.size());
        assertEquals(0, lost, report);
        assertEquals(0, twice, report);
        assertTrue(
                jobs.values().stream()
                        .allMatch(j -> "SUCCEEDED".equals(j.get("state"))
                                || j.getOrDefault("error", "").contains("lost")),
                report);
    }

    /** Submits every job once, retrying the same request (same Idempotency-Key) through outages. */
    private void submitAll() {
        for (int i = 0; i < JOBS; i++) {
            String body = String.format(
                    "{\"type\": \"%s\", \"args\": [\"%.3f\"], \"maxAttempts\": 5}",
                    POOL, 0.010 + random.nextInt(190) / 1000.0);
            String key = "chaos-" + i;
            await().atMost(Duration.ofSeconds(120))
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> trySubmit(body, key));
        }
    }

    /** One try; false while the manager or Redis is down (the next try sends the same key). */
    private boolean trySubmit(String body, String key) {
        try {
            ManagerProcess m = manager.get();
            HttpResponse<String> r = ManagerProcess.HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + m.port + "/jobs"))
                            .timeout(Duration.ofSeconds(10))
                            .header("Content-Type", "application/json")
                            .header("Idempotency-Key", key)
                            .header("Authorization", Tokens.bearer(Tokens.ADMIN))
                            .POST(HttpRequest.BodyPublishers.ofString(body))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 202) {
                accepted.add(ManagerProcess.JSON.readTree(r.body()).get("id").asText());
                return true;
            }
        } catch (Exception e) {
            // the manager is down or restarting
        }
        return false;
    }

    /** Every 2 s a SIGKILL to a random agent; manager restarts and one Redis restart in between. */
    private void chaos(Thread submitter) {
        AtomicInteger rounds = new AtomicInteger();
        ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor();
        clock.scheduleWithFixedDelay(
                () -> {
                    try {
                        round(rounds.incrementAndGet());
                    } catch (Exception | AssertionError e) {
                        failure.set(e);
                    }
                },
                2,
                2,
                TimeUnit.SECONDS);
        await().atMost(Duration.ofMinutes(30))
                .until(() -> failure.get() != null || !submitter.isAlive() && rounds.get() >= 6);
        clock.shutdown();
        await().atMost(Duration.ofMinutes(2)).until(clock::isTerminated);
        if (failure.get() != null) {
            throw new AssertionError("a chaos round failed", failure.get());
        }
    }

    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private int managerRestarts;
    private boolean redisRestarted;

    private void round(int round) throws Exception {
        {
            List<Long> agents = LocalAgents.agentPids(url);
            if (!agents.isEmpty() && !redisDown) {
                ProcessHandle.of(agents.get(random.nextInt(agents.size()))).ifPresent(ProcessHandle::destroyForcibly);
                long killedAt = System.nanoTime();
                awaitFullPool();
                replaceTimes.add((System.nanoTime() - killedAt) / 1_000_000);
            }
            if (round % 3 == 1 && managerRestarts < MANAGER_RESTARTS) {
                manager.get().kill();
                manager.set(ManagerProcess.start(url, "chaos-manager"));
                managerRestarts++;
            } else if (round % 3 == 2 && !redisRestarted) {
                redisDown = true;
                redis.stop();
                redis = RedisServer.persistent(port, dir);
                redisDown = false;
                redisRestarted = true;
            }
        }
    }

    /** Waits until the pool has 4 live processors again. */
    private void awaitFullPool() {
        try (Jedis j = new Jedis(URI.create(url))) {
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .ignoreExceptions()
                    .until(() -> j.smembers(KeySchema.processors(POOL)).stream()
                                            .map(id -> j.hget(KeySchema.processor(POOL, id), "state"))
                                            .filter(s -> "IDLE".equals(s) || "BUSY".equals(s))
                                            .count()
                                    >= 4
                            && LocalAgents.agentPids(url).size() >= 4);
        }
    }

    /** Every accepted job as Redis has it, once all have ended (or the time is up: the report says which did not). */
    private Map<String, Map<String, String>> awaitAllEnded(int seconds) {
        Map<String, Map<String, String>> jobs = new TreeMap<>();
        try (Jedis j = new Jedis(URI.create(url))) {
            try {
                await().atMost(Duration.ofSeconds(seconds))
                        .pollInterval(Duration.ofMillis(500))
                        .until(() -> {
                            for (String id : accepted) {
                                jobs.put(id, j.hgetAll(KeySchema.job(POOL, id)));
                            }
                            return jobs.values().stream().allMatch(h -> ended(h.get("state")));
                        });
            } catch (ConditionTimeoutException e) {
                // reported and asserted below
            }
        }
        return jobs;
    }

    private String report(Map<String, Map<String, String>> jobs, double seconds) {
        Map<String, Integer> byState = new TreeMap<>();
        Map<String, Integer> attempts = new TreeMap<>();
        int lost = 0, twice = 0;
        for (Map<String, String> j : jobs.values()) {
            byState.merge(j.getOrDefault("state", "(missing)"), 1, Integer::sum);
            attempts.merge(j.getOrDefault("attempts", "?"), 1, Integer::sum);
            lost += j.isEmpty() || !ended(j.get("state")) ? 1 : 0;
            twice += Integer.parseInt(j.getOrDefault("completions", "0")) > 1 ? 1 : 0;
        }
        return String.format("chaos run: %d jobs of 10-200 ms on 4 processors, %.0f s%n", JOBS, seconds)
                + String.format("  agents killed (SIGKILL)      %d%n", replaceTimes.size())
                + String.format("  manager kill -9 + restart    %d%n", MANAGER_RESTARTS)
                + String.format("  redis restarts               1%n")
                + String.format("  jobs accepted                %d%n", accepted.size())
                + String.format("  jobs ended by state          %s%n", byState)
                + String.format("  jobs lost                    %d%n", lost)
                + String.format("  jobs completed twice         %d%n", twice)
                + String.format("  attempts histogram           %s%n", attempts)
                + String.format(
                        "  longest kill-to-replaced     %d ms (median %d ms)%n",
                        replaceTimes.stream().mapToLong(Long::longValue).max().orElse(0),
                        replaceTimes.isEmpty()
                                ? 0
                                : replaceTimes.stream().sorted().toList().get(replaceTimes.size() / 2));
    }

    private static boolean ended(String state) {
        return state != null && JobState.valueOf(state).ended();
    }
}
