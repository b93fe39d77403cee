package dev.warmpool.config;

import dev.warmpool.pool.PoolSpec;
import java.util.Map;
import java.util.TreeMap;

/** The pools declared under {@code warmpool.pools}, as specs (defaults filled in). */
public final class ConfigPools {
    private ConfigPools() {
    }

    public static Map<String, PoolSpec> specs(WarmpoolConfig config) {
        Map<String, PoolSpec> out = new TreeMap<>();
        config.pools().forEach((type, p) -> out.put(type, new PoolSpec(p.command(), p.minIdle(), p.maxSize(),
                p.idleTimeoutSeconds(), p.env(), p.workingDir().orElse(null), p.maxQueued(), null, p.worker(),
                p.maxJobsPerProcessor().orElse(null), null, p.jobEnv().orElse(null), p.submitters().orElse(null),
                p.warmth().orElse(null), p.resetCommand().orElse(null), p.maxAgeSeconds().orElse(null))
                .withDefaults()));
        return out;
    }
}
