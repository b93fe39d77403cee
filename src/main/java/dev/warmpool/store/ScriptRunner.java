package dev.warmpool.store;

import dev.warmpool.protocol.script.Script;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.RedisAPI;
import io.vertx.mutiny.redis.client.Response;
import io.vertx.redis.client.ResponseType;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the Lua scripts from the manager, one round trip each: EVALSHA, and EVAL once when
 * Redis answers NOSCRIPT (a restarted or failed-over Redis has an empty script cache).
 */
@ApplicationScoped
public class ScriptRunner {
    private final RedisAPI redis;

    public ScriptRunner(RedisAPI redis) {
        this.redis = redis;
    }

    /** Runs {@code script} on the pool of {@code type}; the reply as plain Java (String, List, or null). */
    public Uni<Object> run(Script script, String type, List<String> args) {
        List<String> keysAndArgs = script.keysAndArgs(type, args);
        return redis.evalsha(prepend(script.sha(), keysAndArgs))
                .onFailure(ScriptRunner::isNoScript)
                .recoverWithUni(() -> redis.eval(prepend(script.source(), keysAndArgs)))
                .map(ScriptRunner::plain);
    }

    private static List<String> prepend(String first, List<String> rest) {
        List<String> all = new ArrayList<>(rest.size() + 1);
        all.add(first);
        all.addAll(rest);
        return all;
    }

    static boolean isNoScript(Throwable t) {
        return t.getMessage() != null && t.getMessage().startsWith("NOSCRIPT");
    }

    /** A Redis reply as plain Java: bulk and simple strings and numbers as String, arrays (and maps, flat) as List. */
    public static Object plain(Response r) {
        if (r == null) {
            return null;
        }
        if (r.type() == ResponseType.MULTI && r.isMap()) {
            // RESP3 answers HGETALL with a map: flatten it as RESP2 would
            List<Object> flat = new ArrayList<>(r.size() * 2);
            for (String k : r.getKeys()) {
                flat.add(k);
                flat.add(plain(r.get(k)));
            }
            return flat;
        }
        if (r.type() == ResponseType.MULTI) {
            List<Object> items = new ArrayList<>(r.size());
            for (Response item : r) {
                items.add(plain(item));
            }
            return items;
        }
        return r.toString();
    }
}
