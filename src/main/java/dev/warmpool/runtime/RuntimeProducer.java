package dev.warmpool.runtime;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.runtime.docker.DockerRuntime;
import dev.warmpool.runtime.kubernetes.KubernetesCalls;
import dev.warmpool.runtime.kubernetes.KubernetesRuntime;
import dev.warmpool.runtime.local.LocalRuntime;
import dev.warmpool.store.AgentUsers;
import io.fabric8.kubernetes.client.KubernetesClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Makes the runtimes this manager holds ({@link Runtimes}), each by its own {@code fromConfig}:
 * {@code warmpool.runtime.type} is the default, which must start; local processes beside it unless it
 * is kubernetes (a manager's pod is no place for processors, and they would go when it scales to zero);
 * docker beside local when {@code warmpool.runtime.docker.host} is set and its engine answers. The
 * Kubernetes client is only made for kubernetes.
 */
public class RuntimeProducer {
    private static final Logger LOG = Logger.getLogger(RuntimeProducer.class);

    @Produces
    @ApplicationScoped
    Runtimes runtime(
            WarmpoolConfig config,
            @ConfigProperty(name = "quarkus.redis.hosts") String redisHosts,
            Instance<KubernetesClient> kubernetes,
            KubernetesCalls calls,
            ObjectMapper json,
            AgentUsers agentUsers) {
        String redis = redisHosts.replace(" ", "");
        String type = config.runtime().type();
        // each agent connects as its pool's Redis user (when Redis asks for a password)
        UnaryOperator<String> agentUrl = t -> agentUsers.urlFor(t).await().atMost(Duration.ofSeconds(10));
        Map<String, ProcessorRuntime> held = new LinkedHashMap<>();
        Map<String, String> absent = new HashMap<>();
        // the machine's devices go to the default runtime alone: two runtimes would hand out the same GPU
        Devices devices = Devices.of(config.runtime().devices());
        Devices none = new Devices(List.of());
        switch (type) {
            case Runtimes.LOCAL -> held.put(type, LocalRuntime.fromConfig(config, redis, agentUrl, devices));
            case Runtimes.DOCKER -> {
                held.put(type, DockerRuntime.fromConfig(config, redis, agentUrl, devices));
                held.put(Runtimes.LOCAL, LocalRuntime.fromConfig(config, redis, agentUrl, none));
            }
            case Runtimes.KUBERNETES ->
                held.put(type, KubernetesRuntime.fromConfig(config, redis, kubernetes.get(), calls, json));
            default ->
                throw new IllegalStateException(
                        "warmpool.runtime.type=" + type + " is not supported; use local, docker or kubernetes");
        }
        if (Runtimes.LOCAL.equals(type) && config.runtime().docker().host().isPresent()) {
            try {
                held.put(Runtimes.DOCKER, DockerRuntime.fromConfig(config, redis, agentUrl, none));
            } catch (IllegalStateException e) {
                // the local pools run all the same; the docker pools say why they do not
                absent.put(Runtimes.DOCKER, e.getMessage());
                LOG.warnf("no docker runtime beside the local one: %s", e.getMessage());
            }
        }
        Runtimes runtimes = new Runtimes(type, held, absent);
        LOG.infof("runtimes: %s (the default, for a pool that names none: %s)", runtimes.names(), type);
        return runtimes;
    }
}
