package dev.warmpool.store;

import dev.warmpool.protocol.Fields;
import dev.warmpool.protocol.KeySchema;
import dev.warmpool.protocol.script.Script;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

    String url() {
        return redis.url();
    }

    /** Runs {@code s} on the pool: KEYS = the pool hash, ARGV = the pool's prefix, then {@code args}. */
    Object run(Script s, List<String> args) {
        List<String> argv = new ArrayList<>(List.of(KeySchema.prefix(type)));
        argv.addAll(args);
        return j.eval(s.source(), List.of(KeySchema.pool(type)), argv);
    }

    /**
     * Every field the scripts left in a job, processor, gang, pool, sweep or tenant hash of the pool is
     * one that {@link Fields} names: the Lua side and the Java side use the same names. Test
     * classes call it after each scenario.
     */
    void checkFields() {
        String p = Pattern.quote(KeySchema.prefix(type));
        Map<String, List<String>> declared = Map.of(
                "job",
                Fields.JobHash.ALL,
                "proc",
                Fields.ProcessorHash.ALL,
                "gang",
                Fields.GangHash.ALL,
                "pool",
                Fields.PoolHash.ALL,
                "sweep",
                Fields.SweepHash.ALL,
                "tenant",
                Fields.TenantHash.ALL);
        Pattern hash = Pattern.compile(p + "(job|proc|gang|sweep|tenant):[^:]+|" + p + "(pool)");
        for (String key : j.keys(KeySchema.prefix(type).replace("{", "\\{").replace("}", "\\}") + "*")) {
            Matcher m = hash.matcher(key);
            if (!m.matches()) {
                continue;
            }
            String kind = m.group(1) != null ? m.group(1) : m.group(2);
            for (String field : j.hkeys(key)) {
                boolean member = kind.equals("job") && field.startsWith(Fields.JobHash.MEMBER_PREFIX);
                if (!member && !declared.get(kind).contains(field)) {
                    throw new AssertionError(
                            key + " has field '" + field + "', which dev.warmpool.protocol.Fields does not name");
                }
            }
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        j.close();
        redis.stop();
    }
}
