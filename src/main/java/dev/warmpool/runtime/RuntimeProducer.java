package dev.warmpool.runtime;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.pool.Ids;
import dev.warmpool.runtime.docker.ContainerFactory;
import dev.warmpool.runtime.docker.DockerRuntime;
import dev.warmpool.runtime.docker.JobUids;
import dev.warmpool.runtime.kubernetes.KubernetesCalls;
import dev.warmpool.runtime.kubernetes.KubernetesRuntime;
import dev.warmpool.runtime.kubernetes.PodFactory;
import dev.warmpool.runtime.local.LocalRuntime;
import io.fabric8.kubernetes.client.KubernetesClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import java.net.URI;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Makes the runtimes this manager holds ({@link Runtimes}): {@code warmpool.runtime.type} is the
 * default, which must start; local processes beside it unless it is kubernetes (a manager's pod is
 * no place for processors, and they would go when it scales to zero); docker beside local when
 * {@code warmpool.runtime.docker.host} is set and its engine answers. The Kubernetes client is only
 * made for kubernetes.
 */
public class RuntimeProducer {
    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger(RuntimeProducer.class);

    @Produces
    @ApplicationScoped
    Runtimes runtime(
            WarmpoolConfig config,
            @ConfigProperty(name = "quarkus.redis.hosts") String redisHosts,
            Instance<KubernetesClient> kubernetes,
            KubernetesCalls calls,
            ObjectMapper json,
            dev.warmpool.store.AgentUsers agentUsers) {
        String redis = redisHosts.replace(" ", "");
        String type = config.runtime().type();
        // each agent connects as its pool's Redis user (when Redis asks for a password)
        java.util.function.UnaryOperator<String> agentUrl =
                t -> agentUsers.urlFor(t).await().atMost(java.time.Duration.ofSeconds(10));
        java.util.Map<String, ProcessorRuntime> held = new java.util.LinkedHashMap<>();
        java.util.Map<String, String> absent = new java.util.HashMap<>();
        // the machine's devices go to the default runtime alone: two runtimes would hand out the same GPU
        Devices devices = Devices.of(config.runtime().devices());
        Devices none = new Devices(java.util.List.of());
        switch (type) {
            case Runtimes.LOCAL -> held.put(type, new LocalRuntime(redis, config, agentUrl, devices));
            case Runtimes.DOCKER -> {
                held.put(type, docker(config, redis, agentUrl, devices));
                held.put(Runtimes.LOCAL, new LocalRuntime(redis, config, agentUrl, none));
            }
            case Runtimes.KUBERNETES -> held.put(type, kubernetes(config, redis, kubernetes.get(), calls, json));
            default ->
                throw new IllegalStateException(
                        "warmpool.runtime.type=" + type + " is not supported; use local, docker or kubernetes");
        }
        if (Runtimes.LOCAL.equals(type) && config.runtime().docker().host().isPresent()) {
            try {
                held.put(Runtimes.DOCKER, docker(config, redis, agentUrl, none));
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

    /**
     * The docker runtime, once its engine answers: a manager that cannot reach it says so at start,
     * with the setting to fix, rather than failing every processor start later.
     */
    private static DockerRuntime docker(
            WarmpoolConfig config, String redis, java.util.function.UnaryOperator<String> agentUrl, Devices devices) {
        WarmpoolConfig.Docker d = config.runtime().docker();
        String host = d.host()
                .or(() -> Optional.ofNullable(System.getenv("DOCKER_HOST")))
                .orElse("unix:///var/run/docker.sock");
        com.github.dockerjava.api.DockerClient client = DockerRuntime.client(host);
        try {
            client.pingCmd().exec();
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "no Docker engine answers at " + host + " (" + e.getMessage()
                            + "): start dockerd (or podman system service), or set warmpool.runtime.docker.host",
                    e);
        }
        if (redis.contains(",")) {
            throw new IllegalStateException("quarkus.redis.hosts names several Redis servers; the docker runtime "
                    + "takes one (its containers get its address)");
        }
        String containerRedis = d.redisUrl()
                .orElseGet(() -> ContainerFactory.containerRedis(redis, DockerRuntime.gateway(client, d.network())));
        java.nio.file.Path bundle = d.agentBundle().orElseGet(RuntimeProducer::defaultAgentBundle);
        if (d.agentBundle().isPresent() && !java.nio.file.Files.isDirectory(bundle)) {
            throw new IllegalStateException("warmpool.runtime.docker.agent-bundle=" + bundle + " is not a directory: "
                    + "./mvnw package makes target/warmpool-agent-bundle, or leave the setting out");
        }
        URI manager = URI.create(redis);
        ContainerFactory.Settings settings = new ContainerFactory.Settings(
                containerRedis,
                bundle,
                d.network(),
                manager.getHost() + ":" + manager.getPort(),
                config.heartbeat().interval().toMillis(),
                config.jobs().retention().toSeconds(),
                config.jobs().logLines(),
                config.events()
                        .sink()
                        .or(() -> Optional.ofNullable(System.getenv("K_SINK")))
                        .orElse(null),
                config.policy().allowHostAccess(),
                config.runtime().pidsLimit(),
                config.redis().pinnedCertificate().map(RuntimeProducer::read).orElse(null),
                config.runtime().maxResultBytes());
        // `stop` finds this install's containers by it, whatever its own environment
        StopCommand.noteDocker(config.runtime().local().stateDir(), host, settings.instance());
        LOG.infof(
                "docker runtime at %s: containers on network %s reach Redis at %s; agent bundle %s%s",
                host,
                d.network(),
                containerRedis,
                bundle.toAbsolutePath(),
                devices.all().isEmpty() ? "" : "; devices for processors: " + devices.all());
        return new DockerRuntime(client, settings, agentUrl, devices, JobUids.parse(d.jobUids()));
    }

    /** The pinned certificate's PEM, which containers get a copy of (they cannot read the manager's state dir). */
    private static String read(String file) {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of(file));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot read warmpool.redis.pinned-certificate=" + file, e);
        }
    }

    /** target/warmpool-agent-bundle beside the running quarkus-app, else under the working directory. */
    private static java.nio.file.Path defaultAgentBundle() {
        String cp = System.getProperty("java.class.path", "");
        if (cp.endsWith("quarkus-run.jar")) {
            java.nio.file.Path beside =
                    java.nio.file.Path.of(cp).toAbsolutePath().getParent().resolveSibling("warmpool-agent-bundle");
            if (java.nio.file.Files.isDirectory(beside)) {
                return beside;
            }
        }
        return java.nio.file.Path.of("target", "warmpool-agent-bundle");
    }

    private static KubernetesRuntime kubernetes(
            WarmpoolConfig config, String redis, KubernetesClient client, KubernetesCalls calls, ObjectMapper json) {
        WarmpoolConfig.Kubernetes k = config.runtime().kubernetes();
        String namespace =
                k.namespace().orElse(Optional.ofNullable(client.getNamespace()).orElse("default"));
        PodFactory.Settings settings = new PodFactory.Settings(
                k.redisUrl().orElse(redis),
                k.agentImage(),
                config.heartbeat().interval().toMillis(),
                config.jobs().retention().toSeconds(),
                config.events()
                        .sink()
                        .or(() -> Optional.ofNullable(System.getenv("K_SINK")))
                        .orElse(null),
                k.redisSecret().orElse(null),
                config.jobs().logLines(),
                config.runtime().maxResultBytes());
        KubernetesRuntime runtime = new KubernetesRuntime(client, calls, namespace, settings, json);
        String identity = Optional.ofNullable(System.getenv("HOSTNAME")).orElse("manager") + "-" + Ids.newProcessorId();
        runtime.elect(k.leaseName(), identity);
        return runtime;
    }
}
