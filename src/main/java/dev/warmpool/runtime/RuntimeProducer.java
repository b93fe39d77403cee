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

/** Chooses the runtime named by {@code warmpool.runtime.type}; the Kubernetes client is only made for kubernetes. */
public class RuntimeProducer {

    @Produces
    @ApplicationScoped
    ProcessorRuntime runtime(
            WarmpoolConfig config,
            @ConfigProperty(name = "quarkus.redis.hosts") String redisHosts,
            Instance<KubernetesClient> kubernetes,
            KubernetesCalls calls,
            ObjectMapper json,
            dev.warmpool.store.AgentUsers agentUsers) {
        String redis = redisHosts.replace(" ", "");
        return switch (config.runtime().type()) {
            // each agent connects as its pool's Redis user (when Redis asks for a password)
            case "local" ->
                new LocalRuntime(
                        redis,
                        config,
                        type -> agentUsers.urlFor(type).await().atMost(java.time.Duration.ofSeconds(10)));
            case "docker" ->
                docker(config, redis, type -> agentUsers.urlFor(type).await().atMost(java.time.Duration.ofSeconds(10)));
            case "kubernetes" -> kubernetes(config, redis, kubernetes.get(), calls, json);
            default ->
                throw new IllegalStateException("warmpool.runtime.type="
                        + config.runtime().type() + " is not supported; use local, docker or kubernetes");
        };
    }

    /**
     * The docker runtime, once its engine answers: a manager that cannot reach it says so at start,
     * with the setting to fix, rather than failing every processor start later.
     */
    private static DockerRuntime docker(
            WarmpoolConfig config, String redis, java.util.function.UnaryOperator<String> agentUrl) {
        WarmpoolConfig.Docker d = config.runtime().docker();
        String host = d.host()
                .or(() -> Optional.ofNullable(System.getenv("DOCKER_HOST")))
                .orElse("unix:///var/run/docker.sock");
        com.github.dockerjava.api.DockerClient client = DockerRuntime.client(host);
        try {
            client.pingCmd().exec();
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "warmpool.runtime.type=docker, but no Docker engine answers at " + host + " (" + e.getMessage()
                            + "): start dockerd (or podman system service), or set warmpool.runtime.docker.host",
                    e);
        }
        if (redis.contains(",")) {
            throw new IllegalStateException(
                    "quarkus.redis.hosts names several Redis servers; warmpool.runtime.type=docker "
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
        Devices devices = Devices.of(config.runtime().devices());
        org.jboss.logging.Logger.getLogger(RuntimeProducer.class)
                .infof(
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
