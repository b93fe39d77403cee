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
        return PoolSpec.builder()
                .command(p.command())
                .minIdle(p.minIdle())
                .maxSize(p.maxSize())
                .idleTimeoutSeconds(p.idleTimeoutSeconds())
                .env(p.env())
                .workingDir(p.workingDir().orElse(null))
                .maxQueued(p.maxQueued())
                .template(template)
                .worker(p.worker())
                .maxJobsPerProcessor(p.maxJobsPerProcessor().orElse(null))
                .jobEnv(p.jobEnv().orElse(null))
                .submitters(p.submitters().orElse(null))
                .warmth(p.warmth().orElse(null))
                .resetCommand(p.resetCommand().orElse(null))
                .maxAgeSeconds(p.maxAgeSeconds().orElse(null))
                .build()
                .withNetwork(p.network().orElse(null))
                .withRuntime(runtime)
                .withDefaults();
    }
}
