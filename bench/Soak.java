// Redis memory over a soak: N jobs of `true` on a pool of 4, with a short retention so that
// finished jobs expire; used_memory before, at the peak, and after the retention has passed.
//
//   ./mvnw -q package -DskipTests && java -cp target/classes:target/warmpool-agent.jar bench/Soak.java [jobs] [retention s]
import dev.warmpool.store.RedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import redis.clients.jedis.Jedis;

public class Soak {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static String base;

    public static void main(String[] args) throws Exception {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int retention = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        RedisServer redis = RedisServer.ephemeral();
        int port = RedisServer.freePort();
        base = "http://127.0.0.1:" + port;
        Process manager = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dquarkus.redis.hosts=" + redis.url(), "-Dquarkus.http.port=" + port,
                "-Dwarmpool.jobs.retention=" + retention + "s", "-Dwarmpool.runtime.local.state-dir=target/bench",
                "-jar", "target/quarkus-app/quarkus-run.jar")
                .redirectErrorStream(true).redirectOutput(Path.of("target", "soak-manager.log").toFile()).start();
        try (Jedis j = new Jedis(URI.create(redis.url()))) {
            await(() -> {
                try {
                    return HTTP.send(request("GET", "/q/health/ready", null), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
                } catch (java.io.IOException e) {
                    return false; // not listening yet
                }
            });
            call("PUT", "/pools/soak", "{\"command\": [\"true\"], \"minIdle\": 4, \"maxSize\": 4, \"maxQueued\": 100000}");
            await(() -> call("GET", "/pools/soak", null).body().contains("\"idle\":4"));
            long before = memory(j);
            long t0 = System.nanoTime();
            long peak = before;
            int sent = 0;
            while (sent < jobs) {
                List<CompletableFuture<HttpResponse<String>>> batch = new ArrayList<>();
                for (int i = 0; i < 500 && sent < jobs; i++, sent++) {
                    batch.add(HTTP.sendAsync(request("POST", "/jobs", "{\"type\": \"soak\"}"), HttpResponse.BodyHandlers.ofString()));
                }
                for (CompletableFuture<HttpResponse<String>> f : batch) {
                    if (f.get().statusCode() != 202) {
                        throw new IllegalStateException(f.get().body());
                    }
                }
                await(() -> j.zcard("wp:{soak}:queue") < 200);
                peak = Math.max(peak, memory(j));
            }
            await(() -> j.zcard("wp:{soak}:queue") == 0 && call("GET", "/pools/soak", null).body().contains("\"busy\":0"));
            double seconds = (System.nanoTime() - t0) / 1e9;
            long atEnd = memory(j);
            long keysAtEnd = j.dbSize();
            Thread.sleep((retention + 2) * 1000L); // let the retention period pass: this is the soak's clock
            call("POST", "/jobs", "{\"type\": \"soak\"}"); // one more finish trims the job index
            await(() -> j.dbSize() < 40);
            long after = memory(j);
            System.out.printf("soak: %d jobs of `true` on 4 processors in %.0f s (%.0f jobs/s), retention %d s%n",
                    jobs, seconds, jobs / seconds, retention);
            System.out.printf("redis used_memory: before %d KB, peak %d KB, at the end %d KB (%d keys), after retention %d KB (%d keys)%n",
                    before / 1024, peak / 1024, atEnd / 1024, keysAtEnd, after / 1024, j.dbSize());
            System.out.printf("per retained job: %d bytes%n", (atEnd - before) / Math.max(1, keysAtEnd));
        } finally {
            manager.destroy();
            manager.waitFor();
            killAgents(redis.url());
            redis.stop();
        }
    }

    static void killAgents(String redisUrl) {
        ProcessHandle.allProcesses().forEach(h -> {
            try {
                String cmd = java.nio.file.Files.readString(Path.of("/proc", Long.toString(h.pid()), "cmdline"));
                if (cmd.contains("-Dwarmpool.redis=" + redisUrl + "\0")) {
                    h.destroyForcibly();
                }
            } catch (Exception e) {
                // gone, or not ours to read
            }
        });
    }

    interface Check {
        boolean ok() throws Exception;
    }

    static void await(Check c) throws Exception {
        long deadline = System.nanoTime() + 600_000_000_000L;
        while (!c.ok()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out");
            }
            Thread.sleep(50);
        }
    }

    static long memory(Jedis j) {
        for (String line : j.info("memory").split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()).trim());
            }
        }
        return -1;
    }

    static HttpRequest request(String method, String path, String body) {
        return HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    static HttpResponse<String> call(String method, String path, String body) {
        try {
            return HTTP.send(request(method, path, body), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
