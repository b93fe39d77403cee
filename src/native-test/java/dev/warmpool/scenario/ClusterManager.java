package dev.warmpool.scenario;

import dev.warmpool.ManagerProcess;
import dev.warmpool.runtime.local.LocalAgents;
import io.restassured.RestAssured;

/**
 * A packaged manager on a real 3-master Redis Cluster, with RestAssured pointed at it: what each
 * cluster IT runs its scenarios against. Closing it stops the manager, its agents and the cluster.
 */
final class ClusterManager implements AutoCloseable {
    final RedisCluster cluster;
    private final ManagerProcess manager;

    private ClusterManager(RedisCluster cluster, ManagerProcess manager) {
        this.cluster = cluster;
        this.manager = manager;
    }

    static ClusterManager start(String name) throws Exception {
        RedisCluster cluster = RedisCluster.start(3);
        try {
            ManagerProcess manager = ManagerProcess.start(cluster.hosts(), name, "-Dquarkus.redis.client-type=cluster");
            RestAssured.baseURI = "http://127.0.0.1";
            RestAssured.port = manager.port;
            return new ClusterManager(cluster, manager);
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    @Override
    public void close() throws InterruptedException {
        RestAssured.reset();
        manager.kill();
        LocalAgents.killAll(cluster.hosts());
        cluster.close();
    }
}
