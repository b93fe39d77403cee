package dev.warmpool.store;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.Jedis;

/**
 * A real redis-server on a free port for one test class, and the scripts called on one pool the
 * way the manager and the agents call them.
 */
final class ScriptsOnRedis implements AutoCloseable {
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
    public void close() {
        j.close();
        redis.stop();
    }
}
