package dev.warmpool;

import dev.warmpool.runtime.local.LocalRuntime;
import dev.warmpool.store.RedisServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * A real redis-server of the test run's own, on a free port (never the shared 6379); when the
 * run ends, the agents that served it are killed and the server is stopped.
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
            LocalRuntime.killAll(redis.url());
            redis.stop();
        }
    }
}
