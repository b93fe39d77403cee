package dev.warmpool.bench;

import static dev.warmpool.bench.Figures.p;
import static dev.warmpool.bench.Figures.put;
import static dev.warmpool.bench.Harness.*;

import dev.warmpool.ManagerProcess;
import dev.warmpool.store.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Manager start-up, launch to ready, median of 3 launches per way of starting it: this JVM plain and lean (C1, serial GC); with a JDK 25, plain, lean, and with an AOT cache recorded by the image's training script, on the fast-jar and the aot-jar layouts. */
final class Startup {
    private Startup() {}

    /** No demo agent starting beside the manager: the manager's own start is measured. */
    static final String QUIET = "-Dwarmpool.pools.demo.min-idle=0";

    static void startup(String redisUrl) throws Exception {
        String here = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path fastJar = Path.of("target", "quarkus-app").toAbsolutePath();
        startupWay(redisUrl, "jdk" + Runtime.version().feature() + ".plain", here, fastJar, "");
        startupWay(redisUrl, "jdk" + Runtime.version().feature() + ".lean", here, fastJar, LEAN);
        Path jdk25 = jdk25();
        if (jdk25 == null) {
            put("startup.jdk25", "no JDK 25 found (set JAVA25_HOME)");
            return;
        }
        String java25 = jdk25.resolve("bin").resolve("java").toString();
        startupWay(redisUrl, "jdk25.plain", java25, fastJar, "");
        startupWay(redisUrl, "jdk25.lean", java25, fastJar, LEAN);
        Path cache =
                train(java25, fastJar, Path.of("target", "bench", "manager.aot").toAbsolutePath());
        put("startup.jdk25.aotCacheMb", Files.size(cache) / (1024 * 1024));
        startupWay(redisUrl, "jdk25.lean+aot", java25, fastJar, LEAN + " -XX:AOTCache=" + cache);
        Path aotJar = Path.of("target", "bench", "aot-jar").toAbsolutePath();
        // the build records its artifact for the integration tests: theirs stays target/quarkus-app
        Path artifact = Path.of("target", "quarkus-artifact.properties");
        byte[] recorded = Files.exists(artifact) ? Files.readAllBytes(artifact) : null;
        Process build = new ProcessBuilder(
                        "./mvnw", "-q", "quarkus:build", "-Paot", "-Dquarkus.package.output-directory=" + aotJar)
                .inheritIO()
                .start();
        int built = build.waitFor();
        if (recorded != null) {
            Files.write(artifact, recorded);
        }
        if (built != 0) {
            put("startup.aotJar", "the aot-jar build failed (./mvnw quarkus:build -Paot)");
            return;
        }
        startupWay(redisUrl, "jdk25.lean (aot-jar)", java25, aotJar, LEAN);
        Path aotJarCache = train(java25, aotJar, aotJar.resolve("app.aot"));
        put("startup.jdk25.aotJar.aotCacheMb", Files.size(aotJarCache) / (1024 * 1024));
        startupWay(redisUrl, "jdk25.lean+aot (aot-jar)", java25, aotJar, LEAN + " -XX:AOTCache=" + aotJarCache);
    }

    /** The AOT cache of the manager in {@code app}, recorded by the image's training script on a Redis of its own. */
    static Path train(String java, Path app, Path cache) throws Exception {
        RedisServer redis = RedisServer.ephemeral();
        try {
            ProcessBuilder pb = new ProcessBuilder(
                            "bash", "src/main/docker/aot-train.sh", app.toString(), cache.toString())
                    .inheritIO();
            pb.environment()
                    .putAll(Map.of(
                            "JAVA",
                            java,
                            "JAVA_OPTS",
                            LEAN,
                            "REDIS_URL",
                            redis.url(),
                            "TRAIN_PORT",
                            Integer.toString(RedisServer.freePort())));
            if (pb.start().waitFor() != 0) {
                throw new IllegalStateException("src/main/docker/aot-train.sh failed for " + app);
            }
            return cache;
        } finally {
            redis.stop();
        }
    }

    static void startupWay(String redisUrl, String label, String java, Path app, String options) throws Exception {
        List<Double> ready = new ArrayList<>();
        List<Double> rss = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ManagerProcess m = launch(
                    Path.of(java),
                    redisUrl,
                    "bench-startup",
                    app,
                    List.of((QUIET + " " + options).trim().split(" ")));
            ready.add(m.readyMs);
            rss.add(rssKb(m.process.pid()) / 1024.0);
            m.stop();
        }
        put("startup." + label + ".readyMs", p(ready, 50));
        put("startup." + label + ".rssMb", p(rss, 50));
    }

    static Path jdk25() {
        String env = System.getenv("JAVA25_HOME");
        if (env != null && Files.isExecutable(Path.of(env, "bin", "java"))) {
            return Path.of(env);
        }
        try (var dirs = Files.list(Path.of("/usr/lib/jvm"))) {
            return dirs.filter(d -> d.getFileName().toString().matches("temurin-2[5-9].*|.*-2[5-9]-.*"))
                    .filter(d -> Files.isExecutable(d.resolve("bin").resolve("java")))
                    .sorted()
                    .findFirst()
                    .orElse(null);
        } catch (Exception e) {
            return null;
        }
    }
}
