package dev.warmpool.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.warmpool.protocol.KeySchema;
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
    static ClusterManager on;

    @BeforeAll
    static void start() throws Exception {
        on = ClusterManager.start("cluster-fair-share-it");
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (on != null) {
            on.close();
        }
    }

    @Test
    public void aPoolsTenantKeysShareItsSlotAndThePoolsLiveOnSeveralMasters() {
        assertEquals(
                on.cluster.ownerOf(KeySchema.pool("flood")),
                on.cluster.ownerOf(KeySchema.tenantQueue("flood", "alice")));
        Set<Integer> owners = Stream.of("flood", "capped", "alone", "fair-sweep")
                .map(t -> on.cluster.ownerOf(KeySchema.pool(t)))
                .collect(Collectors.toSet());
        assertEquals(true, owners.size() >= 2, "the scenario pools use " + owners.size() + " of 3 masters");
    }
}
