package dev.warmpool.bench;

import static dev.warmpool.bench.Figures.p;
import static dev.warmpool.bench.Figures.put;
import static dev.warmpool.bench.Harness.await;
import static dev.warmpool.bench.Harness.count;
import static dev.warmpool.bench.Harness.send;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.ManagerProcess;
import dev.warmpool.auth.TokenFile;
import dev.warmpool.protocol.KeySchema;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import redis.clients.jedis.Jedis;

/**
 * Fair share between tenants (docs/fair-share.md), side by side with it off: what the per-tenant
 * pick costs a burst (no-op jobs, so dispatch is all there is; 2 and 10 tenants submitting at once,
 * on then off, twice, alternated), and what it buys in the flood (4 processors, 200 ms jobs, alice
 * submits a flood, then bob a few): each tenant's queue wait, p50 and p99.
 */
final class Fair {
    private static final int TENANTS = 10;
    private static final List<String> TOKENS = new ArrayList<>();

    private Fair() {}

    /** The bench's admin token and one submitter token per tenant (t0 .. t9), in a tokens file of their own. */
    static String[] managerOptions() throws Exception {
        Path f = Path.of("target", "bench", "fair-tokens").toAbsolutePath();
        Files.createDirectories(f.getParent());
        StringBuilder lines = new StringBuilder(TokenFile.line("bench", "admin", Harness.TOKEN) + "\n");
        TOKENS.clear();
        for (int i = 0; i < TENANTS; i++) {
            String token = "wp_fair_" + i + "_" + Long.toHexString(new SecureRandom().nextLong());
            TOKENS.add(token);
            lines.append(TokenFile.line("t" + i, "submitter", token)).append('\n');
        }
        Files.writeString(f, lines);
        return new String[] {"-Dwarmpool.auth.tokens-file=" + f};
    }

    static void fair(ManagerProcess m, Jedis j, int burstJobs, int floodJobs) throws Exception {
        burst(m, j, "warmup", false, 2, burstJobs); // JIT the paths first
        // three rounds, on and off in turn, which goes first alternating: the machine is shared, read medians
        for (String round : List.of("1", "2", "3")) {
            for (int tenants : new int[] {2, TENANTS}) {
                for (boolean on : round.equals("2") ? new boolean[] {true, false} : new boolean[] {false, true}) {
                    burst(m, j, (on ? "on" : "off") + tenants + "." + round, on, tenants, burstJobs);
                }
            }
        }
        for (int tenants : new int[] {2, TENANTS}) {
            double on = median("on" + tenants), off = median("off" + tenants);
            put("fair.burst.tenants" + tenants + ".on.median", on);
            put("fair.burst.tenants" + tenants + ".off.median", off);
            put("fair.burst.tenants" + tenants + ".onOverOff", on / off);
        }
        flood(m, j, true, floodJobs);
        flood(m, j, false, floodJobs);
    }

    private static double median(String label) {
        List<Double> r = new ArrayList<>();
        for (String round : List.of("1", "2", "3")) {
            r.add(Figures.number("fair.burst." + label + "." + round + ".jobsPerSecond"));
        }
        Collections.sort(r);
        return r.get(1);
    }

    private static void pool(ManagerProcess m, String type, List<String> command, boolean on) throws Exception {
        send(
                m,
                "PUT",
                "/pools/" + type,
                "{\"command\": [\"" + String.join("\", \"", command)
                        + "\"], \"minIdle\": 4, \"maxSize\": 4, \"maxQueued\": 100000, \"fairShare\": " + on + "}");
        await(() -> count(m, type, "idle") == 4);
    }

    /** {@code n} no-op jobs from {@code tenants} tenants at once, in batches of 100: jobs per second, submit to end. */
    static void burst(ManagerProcess m, Jedis j, String label, boolean on, int tenants, int n) throws Exception {
        String type = "b-fair-" + label.replace('.', '-');
        pool(m, type, List.of("warmpool:noop"), on);
        List<CompletableFuture<List<String>>> parts = new ArrayList<>();
        for (int t = 0; t < tenants; t++) {
            int tenant = t;
            int share = n / tenants;
            parts.add(CompletableFuture.supplyAsync(() -> batches(m, type, tenant, share, 100)));
        }
        List<String> ids = new ArrayList<>();
        for (CompletableFuture<List<String>> part : parts) {
            ids.addAll(part.get());
        }
        await(() -> Harness.queued(j, type) == 0 && count(m, type, "busy") == 0);
        long first = Long.MAX_VALUE, last = 0;
        for (String id : ids) {
            List<String> t = j.hmget(KeySchema.job(type, id), "submittedAt", "finishedAt");
            first = Math.min(first, Long.parseLong(t.get(0)));
            last = Math.max(last, Long.parseLong(t.get(1)));
        }
        put("fair.burst." + label + ".jobsPerSecond", ids.size() * 1000.0 / Math.max(1, last - first));
    }

    /** 4 processors, 200 ms jobs: t0 (alice) submits {@code n}, then t1 (bob) 10; each one's queue wait. */
    static void flood(ManagerProcess m, Jedis j, boolean on, int n) throws Exception {
        String type = "b-flood-" + (on ? "on" : "off");
        pool(m, type, List.of("sleep", "0.2"), on);
        List<String> alice = batches(m, type, 0, n, 100);
        List<String> bob = batches(m, type, 1, 10, 10);
        await(() -> Harness.queued(j, type) == 0 && count(m, type, "busy") == 0, 100);
        Map<String, List<String>> who = new LinkedHashMap<>();
        who.put("alice", alice);
        who.put("bob", bob);
        for (Map.Entry<String, List<String>> e : who.entrySet()) {
            List<Double> wait = new ArrayList<>();
            for (String id : e.getValue()) {
                List<String> t = j.hmget(KeySchema.job(type, id), "submittedAt", "startedAt");
                wait.add((double) (Long.parseLong(t.get(1)) - Long.parseLong(t.get(0))));
            }
            String k = "fair.flood." + (on ? "on" : "off") + "." + e.getKey();
            put(k + ".jobs", e.getValue().size());
            put(k + ".queueWaitMs.p50", p(wait, 50));
            put(k + ".queueWaitMs.p99", p(wait, 99));
        }
    }

    /** {@code n} jobs of {@code type} as tenant {@code t}, in batches of {@code size}; their ids. */
    private static List<String> batches(ManagerProcess m, String type, int t, int n, int size) {
        String one = "{\"type\": \"" + type + "\"}";
        List<String> ids = new ArrayList<>();
        try {
            for (int done = 0; done < n; done += size) {
                int k = Math.min(size, n - done);
                String body = "{\"jobs\": [" + String.join(", ", Collections.nCopies(k, one)) + "]}";
                HttpResponse<String> r = ManagerProcess.HTTP.send(
                        HttpRequest.newBuilder(URI.create(m.base() + "/jobs/batch"))
                                .timeout(Duration.ofSeconds(60))
                                .header("Content-Type", "application/json")
                                .header("Authorization", "Bearer " + TOKENS.get(t))
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 202) {
                    throw new IllegalStateException(
                            "POST /jobs/batch as t" + t + ": " + r.statusCode() + " " + r.body());
                }
                for (JsonNode job : ManagerProcess.JSON.readTree(r.body()).path("jobs")) {
                    ids.add(Harness.id(job));
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return ids;
    }
}
