package dev.warmpool.runtime.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.pool.PodTemplate;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.testing.Specs;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class PodFactoryTests {
    static final PodFactory.Settings SETTINGS = new PodFactory.Settings(
            "redis://warmpool-redis:6379",
            "ghcr.io/warmpool/warmpool-agent:0.1.0",
            2000,
            604800,
            "http://broker-ingress/default");

    static ConfigMap owner() {
        ConfigMap owner = PodFactory.owner("gpu-train", "{}");
        owner.getMetadata().setUid("uid-123");
        return owner;
    }

    static PoolSpec spec(PodTemplate t) {
        return Specs.process("python3", "train.py").template(t).build();
    }

    static PodTemplate gpuTemplate(String agent) {
        return new PodTemplate(
                "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime",
                agent,
                Map.of("NCCL_DEBUG", "WARN"),
                new ResourceRequirementsBuilder()
                        .addToRequests("cpu", new Quantity("2"))
                        .addToLimits("nvidia.com/gpu", new Quantity("1"))
                        .build(),
                Map.of("cloud.google.com/gke-accelerator", "nvidia-l4"),
                List.of(new Toleration("NoSchedule", "nvidia.com/gpu", "Exists", null, null)),
                "trainer",
                null,
                null,
                null,
                null);
    }

    static Map<String, String> env(Container c) {
        return c.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
    }

    @Test
    void namesLabelsAndOwnsThePodDeterministically() {
        Pod pod = PodFactory.pod("gpu-train", "p123456789", spec(gpuTemplate(null)), owner(), SETTINGS);
        assertEquals("wp-gpu-train-p123456789", pod.getMetadata().getName());
        assertEquals(
                Map.of(
                        "app.kubernetes.io/managed-by",
                        "warmpool",
                        "warmpool.dev/pool",
                        "gpu-train",
                        "warmpool.dev/processor",
                        "p123456789"),
                pod.getMetadata().getLabels());
        var ref = pod.getMetadata().getOwnerReferences().get(0);
        assertEquals("ConfigMap", ref.getKind());
        assertEquals("wp-pool-gpu-train", ref.getName());
        assertEquals("uid-123", ref.getUid());
        assertEquals(pod, PodFactory.pod("gpu-train", "p123456789", spec(gpuTemplate(null)), owner(), SETTINGS));
        assertEquals("Never", pod.getSpec().getRestartPolicy());
    }

    @Test
    void requestsTheTemplatesResourcesGpusIncludedAndItsPlacement() {
        Pod pod = PodFactory.pod("gpu-train", "p1", spec(gpuTemplate(null)), owner(), SETTINGS);
        Container c = pod.getSpec().getContainers().get(0);
        assertEquals("pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime", c.getImage());
        assertEquals(new Quantity("1"), c.getResources().getLimits().get("nvidia.com/gpu"));
        assertEquals(new Quantity("2"), c.getResources().getRequests().get("cpu"));
        assertEquals("nvidia-l4", pod.getSpec().getNodeSelector().get("cloud.google.com/gke-accelerator"));
        assertEquals("nvidia.com/gpu", pod.getSpec().getTolerations().get(0).getKey());
        assertEquals("trainer", pod.getSpec().getServiceAccountName());
    }

    @Test
    void passesTheLiveLogSizeToTheAgent() {
        PodFactory.Settings s = new PodFactory.Settings("redis://r:6379", "agent:1", 2000, 60, null, null, 250);
        Pod pod = PodFactory.pod("gpu-train", "p1", spec(gpuTemplate(null)), owner(), s);
        assertEquals("250", env(pod.getSpec().getContainers().get(0)).get("WARMPOOL_LOG_LINES"));
    }

    @Test
    void wiresTheAgentThroughAnInitContainerByDefault() {
        Pod pod = PodFactory.pod("gpu-train", "p1", spec(gpuTemplate(null)), owner(), SETTINGS);
        Container init = pod.getSpec().getInitContainers().get(0);
        assertEquals(SETTINGS.agentImage(), init.getImage());
        assertEquals(List.of("cp", "-R", "/warmpool/.", "/opt/warmpool/"), init.getCommand());
        Container main = pod.getSpec().getContainers().get(0);
        assertEquals(List.of(PodFactory.AGENT_LAUNCHER), main.getCommand());
        assertTrue(main.getVolumeMounts().stream()
                .anyMatch(m -> m.getMountPath().equals("/opt/warmpool") && m.getReadOnly()));
        assertTrue(pod.getSpec().getVolumes().stream()
                .anyMatch(v -> v.getEmptyDir() != null && v.getName().equals("warmpool-agent")));
        Map<String, String> env = env(main);
        assertEquals("redis://warmpool-redis:6379", env.get("WARMPOOL_REDIS_URL"));
        assertEquals("gpu-train", env.get("WARMPOOL_POOL"));
        assertEquals("p1", env.get("WARMPOOL_PROCESSOR_ID"));
        assertEquals("http://broker-ingress/default", env.get("K_SINK"));
        assertEquals("WARN", env.get("NCCL_DEBUG"));
    }

    @Test
    void handsTheRedisUrlToTheAgentInAFileNeverInItsEnvironment() {
        PodFactory.Settings withSecret = new PodFactory.Settings(
                "redis://ignored:6379", SETTINGS.agentImage(), 2000, 604800, null, "warmpool-redis/url", 100);
        Pod pod = PodFactory.pod("gpu-train", "p1", spec(gpuTemplate(null)), owner(), withSecret);
        Container main = pod.getSpec().getContainers().get(0);
        assertTrue(
                main.getEnv().stream()
                        .noneMatch(e -> e.getValueFrom() != null
                                || String.valueOf(e.getValue()).contains("redis://")),
                "no Redis URL, nor a Secret reference, in the environment a job can read: " + main.getEnv());
        assertEquals(PodFactory.REDIS_URL_FILE, env(main).get("WARMPOOL_REDIS_URL_FILE"));
        assertTrue(
                main.getVolumeMounts().stream().noneMatch(m -> m.getName().equals(PodFactory.SECRET_VOLUME)),
                "the Secret itself is not mounted where the job runs");
        Container copy = pod.getSpec().getInitContainers().stream()
                .filter(c -> c.getName().equals("warmpool-redis-url"))
                .findFirst()
                .orElseThrow();
        assertEquals(List.of("cp", PodFactory.SECRET_DIR + "/url", PodFactory.REDIS_URL_FILE), copy.getCommand());
        var secret = pod.getSpec().getVolumes().stream()
                .filter(v -> v.getName().equals(PodFactory.SECRET_VOLUME))
                .findFirst()
                .orElseThrow()
                .getSecret();
        assertEquals("warmpool-redis", secret.getSecretName());
        assertEquals("url", secret.getItems().get(0).getKey());
        assertEquals(
                "Memory",
                pod.getSpec().getVolumes().stream()
                        .filter(v -> v.getName().equals(PodFactory.RUN_VOLUME))
                        .findFirst()
                        .orElseThrow()
                        .getEmptyDir()
                        .getMedium(),
                "the copy never touches the node's disk");
    }

    @Test
    void startsABuiltInAgentFromTheImage() {
        Pod pod = PodFactory.pod("gpu-train", "p1", spec(gpuTemplate("built-in")), owner(), SETTINGS);
        assertTrue(pod.getSpec().getInitContainers().isEmpty());
        assertEquals(
                List.of("warmpool-agent"), pod.getSpec().getContainers().get(0).getCommand());
    }

    @Test
    void theAgentIsRootWithOnlyWhatSwitchingUsersTakesAndItsJobsRunAsAUserNoImageHolds() {
        Pod pod = PodFactory.pod("gpu-train", "p1", spec(gpuTemplate(null)), owner(), SETTINGS);
        Container main = pod.getSpec().getContainers().get(0);
        var sc = main.getSecurityContext();
        assertEquals(0L, sc.getRunAsUser());
        assertEquals(0L, sc.getRunAsGroup());
        assertFalse(sc.getRunAsNonRoot());
        assertFalse(sc.getAllowPrivilegeEscalation());
        assertEquals(List.of("ALL"), sc.getCapabilities().getDrop());
        assertEquals(
                List.of("CHOWN", "DAC_OVERRIDE", "FOWNER", "SETUID", "SETGID", "KILL"),
                sc.getCapabilities().getAdd());
        assertEquals("RuntimeDefault", sc.getSeccompProfile().getType());
        Map<String, String> env = env(main);
        assertEquals("room", env.get("WARMPOOL_SANDBOX"));
        assertEquals("1879048192:1879048192", env.get("WARMPOOL_RUN_AS"));
        assertEquals("/opt/warmpool/bin/wp-room", env.get("WARMPOOL_ROOM_INIT"));
        assertEquals(
                "/usr/local/bin/wp-room",
                env(PodFactory.pod("gpu-train", "p1", spec(gpuTemplate("built-in")), owner(), SETTINGS)
                                .getSpec()
                                .getContainers()
                                .get(0))
                        .get("WARMPOOL_ROOM_INIT"),
                "on a built-in agent's PATH");
        // the init steps run no job: they keep the restricted profile
        for (Container init : pod.getSpec().getInitContainers()) {
            assertTrue(init.getSecurityContext().getRunAsNonRoot(), init.getName());
        }
    }

    @Test
    void theTemplatesUserIsItsJobsAndWhatElseItSaysStays() {
        PodTemplate t = new PodTemplate(
                "img",
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                new SecurityContextBuilder()
                        .withRunAsUser(1000L)
                        .withRunAsGroup(100L)
                        .withRunAsNonRoot(true)
                        .withReadOnlyRootFilesystem(true)
                        .withNewCapabilities()
                        .addToAdd("SYS_ADMIN")
                        .endCapabilities()
                        .build(),
                null);
        Container main = PodFactory.pod("t", "p1", spec(t), owner(), SETTINGS)
                .getSpec()
                .getContainers()
                .get(0);
        var sc = main.getSecurityContext();
        assertEquals(0L, sc.getRunAsUser());
        assertFalse(sc.getRunAsNonRoot());
        assertTrue(sc.getReadOnlyRootFilesystem());
        assertEquals(
                List.of("CHOWN", "DAC_OVERRIDE", "FOWNER", "SETUID", "SETGID", "KILL"),
                sc.getCapabilities().getAdd(),
                "the template's capabilities are not the agent's (its jobs get none)");
        assertEquals("1000:100", env(main).get("WARMPOOL_RUN_AS"));
        PodTemplate root = new PodTemplate(
                "img",
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                new SecurityContextBuilder().withRunAsUser(0L).build(),
                null);
        assertTrue(PodFactory.unsupported(root).orElseThrow().contains("never run as root"));
        assertTrue(PodFactory.unsupported(t).isEmpty());
    }

    @Test
    void givesProcessorsTheRuntimesSeccompProfileAndNoApiToken() {
        Pod pod = PodFactory.pod("gpu-train", "p1", spec(gpuTemplate(null)), owner(), SETTINGS);
        var sc = pod.getSpec().getContainers().get(0).getSecurityContext();
        assertEquals("RuntimeDefault", sc.getSeccompProfile().getType());
        assertEquals(
                "RuntimeDefault",
                pod.getSpec().getSecurityContext().getSeccompProfile().getType());
        assertFalse(
                pod.getSpec().getAutomountServiceAccountToken(), "a named service account gets no token unless asked");
        PodTemplate noSa = new PodTemplate("img", null, null, null, null, null, null, null, null, null, null);
        assertFalse(PodFactory.pod("t", "p1", spec(noSa), owner(), SETTINGS)
                .getSpec()
                .getAutomountServiceAccountToken());
        PodTemplate asks = new PodTemplate("img", null, null, null, null, null, "trainer", null, null, null, true);
        assertTrue(
                PodFactory.pod("t", "p1", spec(asks), owner(), SETTINGS)
                        .getSpec()
                        .getAutomountServiceAccountToken(),
                "a template that asks for the token gets it");
        assertNull(PodFactory.pod("t", "p1", spec(noSa), owner(), SETTINGS)
                .getSpec()
                .getServiceAccountName());
    }

    @Test
    void refusesAPoolWithoutATemplate() {
        assertThrows(IllegalArgumentException.class, () -> PodFactory.pod("t", "p1", spec(null), owner(), SETTINGS));
    }
}
