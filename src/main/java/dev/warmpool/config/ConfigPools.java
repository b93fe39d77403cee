package dev.warmpool.config;

import dev.warmpool.api.PoolRequest;
import dev.warmpool.pool.PoolSpec;
import java.util.Map;
import java.util.TreeMap;

/** The pools declared under {@code warmpool.pools}, as API requests and as specs. */
public final class ConfigPools {
    private ConfigPools() {
    }

    public static Map<String, PoolRequest> requests(WarmpoolConfig config) {
        Map<String, PoolRequest> out = new TreeMap<>();
        config.pools().forEach((type, p) -> out.put(type, new PoolRequest(p.command(), p.minIdle(), p.maxSize(),
                p.idleTimeoutSeconds(), p.env(), p.workingDir().orElse(null), p.maxQueued(), null,
                p.worker(), p.maxJobsPerProcessor().orElse(null), null, p.jobEnv().orElse(null),
                p.submitters().orElse(null))));
        return out;
    }

    public static Map<String, PoolSpec> specs(WarmpoolConfig config) {
        Map<String, PoolSpec> out = new TreeMap<>();
        requests(config).forEach((type, r) -> out.put(type, r.toSpec()));
        return out;
    }
}
