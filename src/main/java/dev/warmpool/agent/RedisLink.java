package dev.warmpool.agent;

import dev.warmpool.agent.io.AgentLog;
import dev.warmpool.protocol.Fields;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.protocol.PinnedCertificate;
import dev.warmpool.protocol.script.Script;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.JedisURIHelper;
import redis.clients.jedis.util.KeyValue;

/** The agent's Redis: the shared scripts (EVALSHA, EVAL on NOSCRIPT) and its blocking inbox read. */
final class RedisLink implements AutoCloseable {
    private final UnifiedJedis redis;
    private final String type;
    private final String inbox;

    RedisLink(String url, String type, String processorId) {
        this(url, null, type, processorId);
    }

    /**
     * {@code certificate}: the PEM of the one certificate its Redis must present (the run
     * command's own Redis, {@code rediss://}); null for a Redis configured by the user, as its URL says.
     */
    RedisLink(String url, String certificate, String type, String processorId) {
        // several addresses (redis://a:1,redis://b:2) name the nodes of a Redis Cluster
        this.redis = url.contains(",")
                ? new JedisCluster(nodes(url), poolConfig())
                : certificate == null
                        ? new JedisPooled(poolConfig(), URI.create(url))
                        : pinned(URI.create(url), PinnedCertificate.fromPem(certificate));
        this.type = type;
        this.inbox = KeySchema.inbox(type, processorId);
    }

    /**
     * TLS that completes only with the pinned certificate's holder; Jedis sends AUTH after the
     * handshake, so a server that took the port meanwhile never sees the pool user's password.
     */
    static JedisPooled pinned(URI uri, PinnedCertificate certificate) {
        JedisClientConfig config = DefaultJedisClientConfig.builder()
                .user(JedisURIHelper.getUser(uri))
                .password(JedisURIHelper.getPassword(uri))
                .database(JedisURIHelper.getDBIndex(uri))
                .protocol(JedisURIHelper.getRedisProtocol(uri))
                .ssl(true)
                .sslSocketFactory(certificate.socketFactory())
                .build();
        return new JedisPooled(JedisURIHelper.getHostAndPort(uri), config, poolConfig());
    }

    /** A stopping agent's script that Redis, unreachable, never ran. */
    static final class GaveUp extends RuntimeException {
        GaveUp(String message) {
            super(message);
        }
    }

    /** When a stopping agent stops waiting for Redis (System.nanoTime); Long.MAX_VALUE: never. */
    private volatile long giveUpAt = Long.MAX_VALUE;

    /**
     * From now on {@link #runReliably} waits for an unreachable Redis only until {@code nanoTime}:
     * a stopping agent must end (a scale-down, {@code stop}) even while Redis is gone; the
     * reconciler then finds its processor lost and requeues what it held.
     */
    void giveUpAt(long nanoTime) {
        giveUpAt = nanoTime;
    }

    /**
     * Runs a script, retrying with backoff (0.1 s doubling to 5 s) while Redis is unreachable or
     * loading: a result must survive an outage, so the agent waits for Redis rather than drop it,
     * unless it is stopping (see {@link #giveUpAt}).
     *
     * @throws GaveUp when a stopping agent's time to wait is over
     */
    Object runReliably(Script script, List<String> args) {
        long pause = 100;
        while (true) {
            if (System.nanoTime() - giveUpAt > 0) {
                throw new GaveUp("redis stayed unreachable while the agent stopped; " + script + " not run");
            }
            try {
                return run(script, args);
            } catch (JedisConnectionException e) {
                AgentLog.log("redis unreachable (%s); %s retried in %d ms", e.getMessage(), script, pause);
            } catch (JedisDataException e) {
                if (e.getMessage() == null || !e.getMessage().startsWith("LOADING")) {
                    throw e;
                }
                AgentLog.log("redis is loading its data; %s retried in %d ms", script, pause);
            }
            try {
                Thread.sleep(Math.max(1, Math.min(pause, (giveUpAt - System.nanoTime()) / 1_000_000)));
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for redis", ie);
            }
            pause = Math.min(pause * 2, 5000);
        }
    }

    /**
     * Runs a script on the agent's pool once, with the ARGV that the script's class in
     * {@code protocol} builds; the reply as plain Java (String, List, null), for that class to decode.
     */
    Object run(Script script, List<String> args) {
        // any key of the pool routes the call; not the pool hash, which the agent's ACL user may only read
        List<String> keys = List.of(KeySchema.processors(type));
        List<String> argv = new ArrayList<>(args.size() + 1);
        argv.add(KeySchema.prefix(type));
        argv.addAll(args);
        String sha = script.shaIfHashed();
        if (sha == null) {
            // a script's first call sends its text (Redis has it cached by then, from the manager or
            // an earlier agent) and hashes it off this thread: hashing the register script while the
            // agent starts, still interpreted, took about 20 ms of that start
            Object reply = plain(redis.eval(script.source(), keys, argv));
            Thread hash = new Thread(script::sha, "script-hash");
            hash.setDaemon(true);
            hash.start();
            return reply;
        }
        try {
            return plain(redis.evalsha(sha, keys, argv));
        } catch (JedisDataException e) {
            if (e.getMessage() == null || !e.getMessage().startsWith("NOSCRIPT")) {
                throw e;
            }
            return plain(redis.eval(script.source(), keys, argv));
        }
    }

    /**
     * The pool's spec (JSON) as the pool's hash holds it, read before the processor registers (a
     * persistent worker is tried first, see {@code WorkerSlot.startNow}); null when there is no
     * pool or Redis cannot be read now (the register script then says so, and is retried).
     */
    String poolSpec() {
        try {
            return redis.hget(KeySchema.pool(type), Fields.PoolHash.SPEC);
        } catch (JedisConnectionException | JedisDataException e) {
            return null;
        }
    }

    /** The next inbox message, or null after {@code timeoutSeconds}. */
    String next(double timeoutSeconds) {
        KeyValue<String, String> kv = redis.blpop(timeoutSeconds, inbox);
        return kv == null ? null : kv.getValue();
    }

    /**
     * The connection pool without its JMX MBean: registering it cost each agent about 35 ms of
     * its start (the platform MBean server is made for it), and nothing reads it.
     */
    private static ConnectionPoolConfig poolConfig() {
        ConnectionPoolConfig config = new ConnectionPoolConfig();
        config.setJmxEnabled(false);
        return config;
    }

    static Set<HostAndPort> nodes(String urls) {
        Set<HostAndPort> nodes = new HashSet<>();
        for (String u : urls.split(",")) {
            URI uri = URI.create(u.trim());
            nodes.add(new HostAndPort(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort()));
        }
        return nodes;
    }

    static Object plain(Object o) {
        if (o instanceof byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
        if (o instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            l.forEach(x -> out.add(plain(x)));
            return out;
        }
        return o == null ? null : o.toString();
    }

    @Override
    public void close() {
        redis.close();
    }
}
