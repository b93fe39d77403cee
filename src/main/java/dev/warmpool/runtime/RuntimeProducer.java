package dev.warmpool.runtime;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.pool.Names;
import dev.warmpool.runtime.kubernetes.KubernetesCalls;
import dev.warmpool.runtime.kubernetes.KubernetesRuntime;
import dev.warmpool.runtime.kubernetes.PodFactory;
import dev.warmpool.runtime.local.LocalRuntime;
import io.fabric8.kubernetes.client.KubernetesClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Chooses the runtime named by {@code warmpool.runtime.type}; the Kubernetes client is only made for kubernetes. */
public class RuntimeProducer {

    @Produces
    @ApplicationScoped
    ProcessorRuntime runtime(WarmpoolConfig config, @ConfigProperty(name = "quarkus.redis.hosts") String redisHosts,
            Instance<KubernetesClient> kubernetes, KubernetesCalls calls, ObjectMapper json,
            dev.warmpool.store.AgentUsers agentUsers) {
        String redis = redisHosts.replace(" ", "");
        return switch (config.runtime().type()) {
            // each agent connects as its pool's Redis user (when Redis asks for a password)
            case "local" -> new LocalRuntime(redis, config,
                    type -> agentUsers.urlFor(type).await().atMost(java.time.Duration.ofSeconds(10)));
            case "kubernetes" -> kubernetes(config, redis, kubernetes.get(), calls, json);
            default -> throw new IllegalStateException("warmpool.runtime.type=" + config.runtime().type()
                    + " is not supported; use local or kubernetes");
        };
    }

    private static KubernetesRuntime kubernetes(WarmpoolConfig config, String redis, KubernetesClient client,
            KubernetesCalls calls, ObjectMapper json) {
        WarmpoolConfig.Kubernetes k = config.runtime().kubernetes();
        String namespace = k.namespace().orElse(Optional.ofNullable(client.getNamespace()).orElse("default"));
        PodFactory.Settings settings = new PodFactory.Settings(k.redisUrl().orElse(redis), k.agentImage(),
                config.heartbeat().interval().toMillis(), config.jobs().retention().toSeconds(),
                config.events().sink().or(() -> Optional.ofNullable(System.getenv("K_SINK"))).orElse(null),
                k.redisSecret().orElse(null), config.jobs().logLines());
        KubernetesRuntime runtime = new KubernetesRuntime(client, calls, namespace, settings, json);
        String identity = Optional.ofNullable(System.getenv("HOSTNAME")).orElse("manager") + "-" + Names.newProcessorId();
        runtime.elect(k.leaseName(), identity);
        return runtime;
    }
}
