package dev.warmpool.config;

import dev.warmpool.pool.PodTemplate;
import dev.warmpool.pool.PoolSpec;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The pools declared under {@code warmpool.pools}, as specs (defaults filled in). */
public final class ConfigPools {
    private ConfigPools() {}

    /** Every declared pool that its runtime can run: on docker, those with an {@code image}. */
    public static Map<String, PoolSpec> specs(WarmpoolConfig config) {
        Map<String, PoolSpec> out = new TreeMap<>();
        config.pools().forEach((type, p) -> {
            String runtime = p.runtime().orElse(config.runtime().type());
            if (p.image().isEmpty() && "docker".equals(runtime)) {
                return;
            }
            out.put(type, spec(p, runtime));
        });
        return out;
    }

    /** The declared pools left out: on the docker runtime, those without an image. */
    public static List<String> leftOut(WarmpoolConfig config) {
        return config.pools().keySet().stream()
                .filter(t -> !specs(config).containsKey(t))
                .sorted()
                .toList();
    }

    private static PoolSpec spec(WarmpoolConfig.PoolConfig p, String runtime) {
        // a local pool's processors are processes of this machine: an image names nothing there
        PodTemplate template = p.image()
                .filter(image -> !"local".equals(runtime))
                .map(image -> new PodTemplate(image, null, null, null, null, null, null, null, null, null, null))
                .orElse(null);
        return new PoolSpec(
                        p.command(),
                        p.minIdle(),
                        p.maxSize(),
                        p.idleTimeoutSeconds(),
                        p.env(),
                        p.workingDir().orElse(null),
                        p.maxQueued(),
                        template,
                        p.worker(),
                        p.maxJobsPerProcessor().orElse(null),
                        null,
                        p.jobEnv().orElse(null),
                        p.submitters().orElse(null),
                        p.warmth().orElse(null),
                        p.resetCommand().orElse(null),
                        p.maxAgeSeconds().orElse(null))
                .withNetwork(p.network().orElse(null))
                .withRuntime(runtime)
                .withDefaults();
    }
}
