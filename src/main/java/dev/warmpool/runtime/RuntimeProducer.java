package dev.warmpool.runtime;

import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.runtime.local.LocalRuntime;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Chooses the runtime named by {@code warmpool.runtime.type}. */
public class RuntimeProducer {

    @Produces
    @ApplicationScoped
    ProcessorRuntime runtime(WarmpoolConfig config, @ConfigProperty(name = "quarkus.redis.hosts") String redisHosts) {
        return switch (config.runtime().type()) {
            case "local" -> new LocalRuntime(redisHosts.replace(" ", ""), config);
            default -> throw new IllegalStateException("warmpool.runtime.type=" + config.runtime().type()
                    + " is not supported; use local");
        };
    }
}
