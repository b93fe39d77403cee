package dev.warmpool.scenario;

import static org.awaitility.Awaitility.await;

import dev.warmpool.store.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import redis.clients.jedis.Jedis;

/** A real Redis Cluster of {@code n} masters on free ports, slots split evenly, for tests. */
final class RedisCluster implements AutoCloseable {
    final List<Integer> ports = new ArrayList<>();
    private final List<Process> nodes = new ArrayList<>();

    static RedisCluster start(int masters) throws IOException {
        RedisCluster c = new RedisCluster();
        Path dir = Files.createTempDirectory(Path.of("target"), "redis-cluster");
        for (int i = 0; i < masters; i++) {
            int port = RedisServer.freePort();
            Path nodeDir = Files.createDirectories(dir.resolve(Integer.toString(port)));
            c.nodes.add(new ProcessBuilder(
                            RedisServer.binary().toString(),
                            "--port",
                            Integer.toString(port),
                            "--bind",
                            "127.0.0.1",
                            "--cluster-enabled",
                            "yes",
                            "--cluster-config-file",
                            "nodes.conf",
                            "--cluster-node-timeout",
                            "5000",
                            "--dir",
                            nodeDir.toString(),
                            "--save",
                            "",
                            "--appendonly",
                            "no")
                    .redirectErrorStream(true)
                    .redirectOutput(nodeDir.resolve("redis.log").toFile())
                    .start());
            c.ports.add(port);
        }
        c.ports.forEach(p -> await().atMost(Duration.ofSeconds(20)).until(() -> RedisServer.ping(p)));
        int per = 16384 / masters;
        for (int i = 0; i < masters; i++) {
            int from = i * per, to = i == masters - 1 ? 16383 : (i + 1) * per - 1;
            try (Jedis j = new Jedis("127.0.0.1", c.ports.get(i))) {
                j.clusterAddSlots(IntStream.rangeClosed(from, to).toArray());
                if (i > 0) {
                    j.clusterMeet("127.0.0.1", c.ports.get(0));
                }
            }
        }
        for (int p : c.ports) {
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                try (Jedis j = new Jedis("127.0.0.1", p)) {
                    return j.clusterInfo().contains("cluster_state:ok")
                            && j.clusterInfo().contains("cluster_known_nodes:" + masters);
                }
            });
        }
        return c;
    }

    /** The node list as {@code quarkus.redis.hosts} takes it. */
    String hosts() {
        return ports.stream().map(p -> "redis://127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    /** The port of the master that serves {@code key}. */
    int ownerOf(String key) {
        try (Jedis j = new Jedis("127.0.0.1", ports.get(0))) {
            long slot = j.clusterKeySlot(key);
            return ports.get((int) Math.min(slot / (16384 / ports.size()), ports.size() - 1));
        }
    }

    @Override
    public void close() {
        nodes.forEach(Process::destroyForcibly);
    }
}
