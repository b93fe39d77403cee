package dev.warmpool.bench;

import static dev.warmpool.bench.Harness.*;

import dev.warmpool.ManagerProcess;
import dev.warmpool.runtime.local.LocalAgents;
import dev.warmpool.store.RedisServer;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import redis.clients.jedis.Jedis;

/** Redis memory over a soak: it follows the retained jobs, not the jobs ever run. */
final class Soak {
    private Soak() {}

    static void soak(int jobs, int retentionSeconds) throws Exception {
        RedisServer redis = RedisServer.ephemeral();
        ManagerProcess m = manager(redis.url(), "bench-soak", "-Dwarmpool.jobs.retention=" + retentionSeconds + "s");
        try (Jedis j = new Jedis(URI.create(redis.url()))) {
            send(
                    m,
                    "PUT",
                    "/pools/soak",
                    "{\"command\": [\"true\"], \"minIdle\": 4, \"maxSize\": 4, \"maxQueued\": 100000}");
            await(() -> count(m, "soak", "idle") == 4);
            long before = usedMemory(j), peak = before;
            long t0 = System.nanoTime();
            for (int sent = 0; sent < jobs; ) {
                List<CompletableFuture<HttpResponse<String>>> batch = new ArrayList<>();
                for (int i = 0; i < 500 && sent < jobs; i++, sent++) {
                    batch.add(ManagerProcess.HTTP.sendAsync(
                            m.request("POST", "/jobs", "{\"type\": \"soak\"}", Map.of()),
                            HttpResponse.BodyHandlers.ofString()));
                }
                for (CompletableFuture<HttpResponse<String>> f : batch) {
                    if (f.get().statusCode() != 202) {
                        throw new IllegalStateException(f.get().body());
                    }
                }
                await(() -> Harness.queued(j, "soak") < 200);
                peak = Math.max(peak, usedMemory(j));
            }
            await(() -> Harness.queued(j, "soak") == 0 && count(m, "soak", "busy") == 0);
            double seconds = (System.nanoTime() - t0) / 1e9;
            long atEnd = usedMemory(j), keysAtEnd = j.dbSize();
            long expired = System.currentTimeMillis() + (retentionSeconds + 2) * 1000L;
            await(() -> System.currentTimeMillis() > expired, 500); // let the retention period pass
            send(m, "POST", "/jobs", "{\"type\": \"soak\"}"); // one more end trims the job index
            await(() -> j.dbSize() < 40);
            System.out.printf(
                    "soak: %d jobs of `true` on 4 processors in %.0f s (%.0f jobs/s), retention %d s%n",
                    jobs, seconds, jobs / seconds, retentionSeconds);
            System.out.printf(
                    "redis used_memory: before %d KB, peak %d KB, at the end %d KB (%d keys), "
                            + "after retention %d KB (%d keys)%n",
                    before / 1024, peak / 1024, atEnd / 1024, keysAtEnd, usedMemory(j) / 1024, j.dbSize());
        } finally {
            m.stop();
            LocalAgents.killAll(redis.url());
            redis.stop();
        }
    }
}
