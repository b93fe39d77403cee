package dev.warmpool.runtime.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.model.Capability;
import dev.warmpool.pool.PodTemplate;
import dev.warmpool.pool.PoolSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ContainerFactoryTests {
    static final ContainerFactory.Settings SETTINGS = new ContainerFactory.Settings(
            "redis://172.17.0.1:6380", Path.of("/srv/bundle"), "bridge", "127.0.0.1:6380", 2000, 604800, 10_000, null);

    static PodTemplate template(String agent, Map<String, String> env) {
        return new PodTemplate(
                "warmpool-base:bookworm",
                agent,
                env,
                new ResourceRequirementsBuilder()
                        .addToLimits("cpu", new Quantity("500m"))
                        .addToLimits("memory", new Quantity("256Mi"))
                        .build(),
                null,
                null,
                null,
                null,
                null,
                new SecurityContextBuilder()
                        .withRunAsUser(1000L)
                        .withReadOnlyRootFilesystem(true)
                        .build(),
                null);
    }

    static PoolSpec spec(PodTemplate t) {
        return new PoolSpec(
                List.of("sh", "-c", "hostname"), 1, 4, 300, Map.of(), null, 100, t, "process", null, null, null, null);
    }

    @Test
    void aProcessorIsAContainerOfThePoolsImageWithTheAgentMountedReadOnly() {
        ContainerFactory.Plan p = ContainerFactory.container("train", "p1", spec(template(null, null)), SETTINGS);
        assertEquals("warmpool-base:bookworm", p.image());
        assertEquals(List.of("/opt/warmpool/bin/warmpool-agent"), p.entrypoint());
        assertEquals("/srv/bundle:/opt/warmpool:ro", p.host().getBinds()[0].toString());
        assertEquals(
                Map.of(
                        "app.kubernetes.io/managed-by",
                        "warmpool",
                        "warmpool.dev/instance",
                        "127.0.0.1:6380",
                        "warmpool.dev/pool",
                        "train",
                        "warmpool.dev/processor",
                        "p1"),
                p.labels());
        assertEquals("wp-train-p1", p.name());
    }

    @Test
    void aBuiltInAgentStartsFromTheImagesPathWithNothingMounted() {
        ContainerFactory.Plan p = ContainerFactory.container("train", "p1", spec(template("built-in", null)), SETTINGS);
        assertEquals(List.of("warmpool-agent"), p.entrypoint());
        assertTrue(p.host().getBinds() == null || p.host().getBinds().length == 0);
    }

    @Test
    void limitsAndTheRestrictedProfileReachTheHostConfig() {
        var h = ContainerFactory.container("train", "p1", spec(template(null, null)), SETTINGS)
                .host();
        assertEquals(500_000_000L, h.getNanoCPUs());
        assertEquals(256L * 1024 * 1024, h.getMemory());
        assertEquals(List.of(Capability.ALL), List.of(h.getCapDrop()));
        assertEquals(List.of("no-new-privileges"), h.getSecurityOpts());
        assertFalse(h.getPrivileged());
        assertTrue(h.getReadonlyRootfs());
        assertEquals("bridge", h.getNetworkMode());
        assertTrue(h.getTmpFs().containsKey("/tmp"), "a read-only root still gets a writable /tmp for jobs");
    }

    @Test
    void theRedisUrlIsNeverInTheEnvironmentOnlyWhereItsFileIs() {
        ContainerFactory.Plan p =
                ContainerFactory.container("train", "p1", spec(template(null, Map.of("A", "1"))), SETTINGS);
        assertTrue(p.env().contains("WARMPOOL_REDIS_URL_FILE=/run/warmpool/secret/redis-url"));
        assertTrue(
                p.env().stream().noneMatch(e -> e.startsWith("WARMPOOL_REDIS_URL=") || e.contains("redis://")),
                p.env().toString());
        assertTrue(p.env().contains("A=1") && p.env().contains("WARMPOOL_PASS_ENV=A"));
        assertEquals("1000", p.user().orElseThrow());
    }

    @Test
    void agentsReachTheManagersRedisAtTheGatewayWithTheirPoolsCredentials() {
        assertEquals(
                "redis://172.17.0.1:6380", ContainerFactory.containerRedis("redis://:pw@127.0.0.1:6380", "172.17.0.1"));
        assertEquals(
                "redis://redis.internal:6379",
                ContainerFactory.containerRedis("redis://redis.internal:6379", "172.17.0.1"));
        assertEquals(
                "redis://wp-agent-train:s3cret@172.17.0.1:6380",
                ContainerFactory.forContainers(
                        "redis://wp-agent-train:s3cret@127.0.0.1:6380", "redis://172.17.0.1:6380"));
    }

    @Test
    void templatesDockerCannotRunAreNamedWithWhatToFix() {
        assertTrue(ContainerFactory.unsupported(null).orElseThrow().contains("\"image\""));
        PodTemplate hostPath = new PodTemplate(
                "img",
                null,
                null,
                null,
                null,
                null,
                null,
                List.of(new VolumeBuilder()
                        .withName("data")
                        .withNewHostPath("/data", null)
                        .build()),
                null,
                null,
                null);
        assertTrue(ContainerFactory.unsupported(hostPath).orElseThrow().contains("emptyDir"));
        PodTemplate badCpu = new PodTemplate(
                "img",
                null,
                null,
                new ResourceRequirementsBuilder()
                        .addToLimits("cpu", new Quantity("-1"))
                        .build(),
                null,
                null,
                null,
                null,
                null,
                null,
                null);
        assertTrue(ContainerFactory.unsupported(badCpu).orElseThrow().contains("resources.limits.cpu"));
        assertTrue(ContainerFactory.unsupported(template(null, null)).isEmpty());
    }
}
