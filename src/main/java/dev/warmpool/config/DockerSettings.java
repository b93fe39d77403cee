package dev.warmpool.config;

import dev.warmpool.runtime.docker.JobUids;
import io.smallrye.config.WithDefault;
import java.nio.file.Path;
import java.util.Optional;

/** {@code warmpool.runtime.docker.*}: where the docker runtime's engine is, and what its containers share. */
public interface DockerSettings {
    /**
     * The Docker (or Podman) Engine API, e.g. {@code unix:///run/podman/podman.sock} or
     * {@code tcp://127.0.0.1:2375}: {@code DOCKER_HOST} when unset, else {@code unix:///var/run/docker.sock}.
     */
    Optional<String> host();

    /**
     * The agent bundle (a jlink'd Java runtime, the agent jar, bin/warmpool-agent) that an
     * {@code agent: init-container} pool's containers mount read-only at /opt/warmpool:
     * target/warmpool-agent-bundle beside the running quarkus-app (./mvnw package makes it) when unset.
     */
    Optional<Path> agentBundle();

    /**
     * The network processors join. The default bridge: containers reach the host (and the
     * Redis the manager runs there) at its gateway address, and nothing of the host's own network.
     */
    @WithDefault("bridge")
    String network();

    /**
     * The Redis address containers use, without credentials (each agent gets its pool's user
     * and password by a file). When unset, the manager's, with a loopback host replaced by the
     * network's gateway: that Redis must listen there too (the run command's own Redis does).
     */
    Optional<String> redisUrl();

    /**
     * The uids jobs run as, {@code FIRST-LAST}: each container's jobs get one no other live
     * container of this install holds (a pool's {@code securityContext.runAsUser} aside). The
     * default, 0x70000000 and the 65535 after it, is a block systemd leaves unused, so no user of
     * the host or of an image holds one; two installs on one engine should take ranges apart.
     */
    @WithDefault(JobUids.DEFAULT_RANGE)
    String jobUids();
}
