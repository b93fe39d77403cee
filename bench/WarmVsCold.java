// Submit-to-running on a warm processor against a cold one, and what the manager and an agent
// hold in memory: one run, figures side by side. Not a test: it prints and never fails on time.
//
//   ./mvnw -q package -DskipTests && java -cp target/classes bench/WarmVsCold.java [warm jobs] [cold jobs]
//
// It starts its own redis-server (from PATH) on a free port and the packaged manager on another.
import dev.warmpool.store.RedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class WarmVsCold {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static String base;

    public static void main(String[] args) throws Exception {
        int warmJobs = args.length > 0 ? Integer.parseInt(args[0]) : 50;
        int coldJobs = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        RedisServer redis = RedisServer.ephemeral();
        int port = RedisServer.freePort();
        base = "http://127.0.0.1:" + port;
        long t0 = System.nanoTime();
        Process manager = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dquarkus.redis.hosts=" + redis.url(), "-Dquarkus.http.port=" + port,
                "-Dwarmpool.runtime.local.state-dir=target/bench", "-jar", "target/quarkus-app/quarkus-run.jar")
                .redirectErrorStream(true).redirectOutput(Path.of("target", "bench-manager.log").toFile()).start();
        try {
            while (status("GET", "/q/health/ready", null) != 200) {
                Thread.sleep(20);
            }
            double readyMs = (System.nanoTime() - t0) / 1e6;
            long managerRssStart = rssKb(manager.pid());

            send("PUT", "/pools/bench-warm", "{\"command\": [\"true\"], \"minIdle\": 1, \"maxSize\": 1}");
            while (!send("GET", "/pools/bench-warm", null).contains("\"idle\":1")) {
                Thread.sleep(20);
            }
            List<Double> warmStart = new ArrayList<>(), warmClient = new ArrayList<>();
            for (int i = 0; i < warmJobs; i++) {
                long c0 = System.nanoTime();
                String id = field(send("POST", "/jobs", "{\"type\": \"bench-warm\"}"), "id");
                String job = send("GET", "/jobs/" + id + "?wait=30", null);
                warmClient.add((System.nanoTime() - c0) / 1e6);
                warmStart.add(millis(job, "startedAt") - millis(job, "submittedAt"));
            }
            List<Double> coldStart = new ArrayList<>(), coldClient = new ArrayList<>();
            for (int i = 0; i < coldJobs; i++) {
                send("PUT", "/pools/bench-cold-" + i, "{\"command\": [\"true\"], \"minIdle\": 0, \"maxSize\": 1}");
                long c0 = System.nanoTime();
                String id = field(send("POST", "/jobs", "{\"type\": \"bench-cold-" + i + "\"}"), "id");
                String job = send("GET", "/jobs/" + id + "?wait=60", null);
                coldClient.add((System.nanoTime() - c0) / 1e6);
                coldStart.add(millis(job, "startedAt") - millis(job, "submittedAt"));
                send("DELETE", "/pools/bench-cold-" + i, null);
            }
            long agentRss = agentPids(redis.url()).stream().mapToLong(WarmVsCold::rssKb).max().orElse(0);
            System.out.printf("%-44s %10s %10s %8s%n", "figure (ms)", "warm", "cold", "cold/warm");
            row("submit -> running p50 (server clocks)", p(warmStart, 50), p(coldStart, 50));
            row("submit -> running p90 (server clocks)", p(warmStart, 90), p(coldStart, 90));
            row("submit -> finished p50 (client, true)", p(warmClient, 50), p(coldClient, 50));
            System.out.printf("jobs: %d warm, %d cold%n", warmJobs, coldJobs);
            System.out.printf("manager: ready %.0f ms after launch; RSS %d MB after start, %d MB after the run%n",
                    readyMs, managerRssStart / 1024, rssKb(manager.pid()) / 1024);
            System.out.printf("agent: RSS %d MB after %d jobs%n", agentRss / 1024, warmJobs);
        } finally {
            manager.destroy();
            manager.waitFor();
            for (long pid : agentPids(redis.url())) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
            redis.stop();
        }
    }

    static void row(String name, double warm, double cold) {
        System.out.printf("%-44s %10.1f %10.1f %8.0f%n", name, warm, cold, cold / Math.max(warm, 0.001));
    }

    static double p(List<Double> xs, int pct) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(Math.min(s.size() - 1, (int) Math.ceil(pct / 100.0 * s.size()) - 1));
    }

    static String field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":\"([^\"]*)\"").matcher(json);
        if (!m.find()) {
            throw new IllegalStateException("no " + name + " in " + json);
        }
        return m.group(1);
    }

    static double millis(String json, String name) {
        return Instant.parse(field(json, name)).toEpochMilli();
    }

    static String send(String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(90))
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() >= 300) {
            throw new IllegalStateException(method + " " + path + ": " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    static int status(String method, String path, String body) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(base + path)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    static long rssKb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (Exception e) {
            return 0;
        }
        return 0;
    }

    static List<Long> agentPids(String redisUrl) {
        List<Long> pids = new ArrayList<>();
        ProcessHandle.allProcesses().forEach(h -> {
            try {
                String cmd = Files.readString(Path.of("/proc", Long.toString(h.pid()), "cmdline"));
                if (cmd.contains("-Dwarmpool.redis=" + redisUrl + "\0")) {
                    pids.add(h.pid());
                }
            } catch (Exception e) {
                // gone, or not ours to read
            }
        });
        return pids;
    }
}
