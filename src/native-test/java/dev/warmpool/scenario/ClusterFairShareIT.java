package dev.warmpool.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.warmpool.ManagerProcess;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.runtime.local.LocalAgents;
import io.restassured.RestAssured;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The fair-share scenarios against a real 3-master Redis Cluster: a pool's tenants' queues and
 * counts carry its {@code {type}} tag, so each pick is still one script on one hash slot.
 */
class ClusterFairShareIT extends FairShareScenarios {
    static RedisCluster cluster;
    static ManagerProcess manager;

    @BeforeAll
    static void start() throws Exception {
        cluster = RedisCluster.start(3);
        manager = ManagerProcess.start(cluster.hosts(), "cluster-fair-share-it", "-Dquarkus.redis.client-type=cluster");
        RestAssured.baseURI = "http://127.0.0.1";
        RestAssured.port = manager.port;
    }

    @AfterAll
    static void stop() throws InterruptedException {
        RestAssured.reset();
        if (manager != null) {
            manager.kill();
        }
        if (cluster != null) {
            LocalAgents.killAll(cluster.hosts());
            cluster.close();
        }
    }

    @Test
    public void aPoolsTenantKeysShareItsSlotAndThePoolsLiveOnSeveralMasters() {
        assertEquals(
                cluster.ownerOf(KeySchema.pool("flood")), cluster.ownerOf(KeySchema.tenantQueue("flood", "alice")));
        Set<Integer> owners = Stream.of("flood", "capped", "alone", "fair-sweep")
                .map(t -> cluster.ownerOf(KeySchema.pool(t)))
                .collect(Collectors.toSet());
        assertEquals(true, owners.size() >= 2, "the scenario pools use " + owners.size() + " of 3 masters");
    }
}
