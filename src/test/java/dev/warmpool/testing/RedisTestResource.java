package dev.warmpool.testing;

import static org.awaitility.Awaitility.await;

import dev.warmpool.runtime.local.LocalAgents;
import dev.warmpool.store.RedisServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.time.Duration;
import java.util.Map;

/**
 * A real redis-server of the test run's own, on a free port (never the shared 6379); when the
 * run ends, the server is stopped and the agents that served it are killed.
 */
public class RedisTestResource implements QuarkusTestResourceLifecycleManager {
    private RedisServer redis;

    @Override
    public Map<String, String> start() {
        redis = RedisServer.ephemeral();
        return Map.of("quarkus.redis.hosts", redis.url());
    }

    @Override
    public void stop() {
        if (redis != null) {
            // The manager under test is still up here: agents killed while its Redis answers are
            // lost processors to it, and it starts new ones at once, which outlive the run. With
            // Redis gone it can start none (a start is recorded in Redis first), so Redis goes
            // first, then the agents, until none has appeared for half a second.
            redis.stop();
            await().atMost(Duration.ofSeconds(30))
                    .during(Duration.ofMillis(500))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> LocalAgents.killAll(redis.url()) == 0);
        }
    }
}
