package dev.warmpool.store;

import dev.warmpool.protocol.Script;
import dev.warmpool.protocol.KeySchema;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import redis.clients.jedis.Jedis;

/**
 * A real redis-server on a free port for one test class ({@code @RegisterExtension static}: it
 * stops after the class), and the scripts called on one pool the way the manager and the agents
 * call them.
 */
final class ScriptsOnRedis implements AfterAllCallback {
    private final RedisServer redis = RedisServer.ephemeral();
    final Jedis j = new Jedis(URI.create(redis.url()));
    private final String type;

    ScriptsOnRedis(String type) {
        this.type = type;
    }

    /** Runs {@code s} on the pool: KEYS = the pool hash, ARGV = the pool's prefix, then {@code args}. */
    Object run(Script s, List<String> args) {
        List<String> argv = new ArrayList<>(List.of(KeySchema.prefix(type)));
        argv.addAll(args);
        return j.eval(s.source(), List.of(KeySchema.pool(type)), argv);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        j.close();
        redis.stop();
    }
}
