package dev.warmpool.scenario;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.protocol.KeySchema;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dispatch scenarios against a real 3-master Redis Cluster: every script touches one hash
 * slot (the pool's {@code {type}} tag), so the same code runs there, manager and agents alike.
 */
class ClusterDispatchIT extends WarmDispatchScenarios {
    static ClusterManager on;

    @BeforeAll
    static void start() throws Exception {
        on = ClusterManager.start("cluster-dispatch-it");
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (on != null) {
            on.close();
        }
    }

    @Test
    public void poolsOfTheScenariosLiveOnDifferentMasters() {
        Set<Integer> owners = Stream.of(
                        "reuse", "sep-a", "sep-b", "io", "fails", "prio", "cq", "cr", "slow", "burst", "gone")
                .map(t -> on.cluster.ownerOf(KeySchema.pool(t)))
                .collect(Collectors.toSet());
        assertTrue(owners.size() == 3, "the scenario pools use " + owners.size() + " of 3 masters");
    }
}
