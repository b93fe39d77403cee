package dev.warmpool.runtime.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.model.Capability;
import dev.warmpool.pool.PodTemplate;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.runtime.Labels;
import dev.warmpool.testing.Specs;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

class ContainerFactoryTests {
    static final ContainerFactory.Settings SETTINGS = new ContainerFactory.Settings(
            "redis://172.17.0.1:6380",
            Path.of("/srv/bundle"),
            "bridge",
            "127.0.0.1:6380",
            2000,
            604800,
            10_000,
            null,
            false);

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
        return Specs.process("sh", "-c", "hostname").template(t).build();
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
                        "p1",
                        "warmpool.dev/job-uid",
                        "1000"),
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
        assertEquals(
                List.of(
                        Capability.CHOWN,
                        Capability.DAC_OVERRIDE,
                        Capability.FOWNER,
                        Capability.SETUID,
                        Capability.SETGID,
                        Capability.KILL),
                List.of(h.getCapAdd()),
                "the agent keeps what switching users and clearing up take, nothing else");
        assertEquals(List.of("no-new-privileges"), h.getSecurityOpts());
        assertFalse(h.getPrivileged());
        assertTrue(h.getReadonlyRootfs());
        assertEquals("bridge", h.getNetworkMode());
        assertTrue(h.getTmpFs().containsKey("/tmp"), "a read-only root still gets a writable /tmp for jobs");
    }

    @Test
    void theAgentRunsAsRootWhateverTheImagesUserAndItsJobsAsTheirOwnThroughTheRoomsInit() {
        PodTemplate noUser = new PodTemplate("img", null, null, null, null, null, null, null, null, null, null);
        ContainerFactory.Plan p = ContainerFactory.container(
                "train",
                "p1",
                spec(noUser),
                SETTINGS,
                List.of(),
                new ContainerFactory.JobUser(1879048199L, 1879048199L));
        assertEquals("0:0", p.user().orElseThrow(), "root: the agent starts each job as the jobs' user");
        assertEquals(0L, p.uid().orElseThrow(), "the agent's secret file is root's");
        assertTrue(p.env().contains("WARMPOOL_SANDBOX=room"), p.env().toString());
        assertTrue(
                p.env().contains("WARMPOOL_RUN_AS=1879048199:1879048199"),
                p.env().toString());
        assertTrue(
                p.env().contains("WARMPOOL_ROOM_INIT=/opt/warmpool/bin/wp-room"),
                p.env().toString());
        assertEquals("1879048199", p.labels().get(ContainerFactory.JOB_UID), "read back by a manager that restarts");
        assertTrue(
                ContainerFactory.container("train", "p1", spec(template("built-in", null)), SETTINGS)
                        .env()
                        .contains("WARMPOOL_ROOM_INIT=/usr/local/bin/wp-room"),
                "where Dockerfile.agent puts it for a built-in agent's image");
        // what every user may write is a tmpfs the room can wipe, read-only root or not
        var tmpfs = p.host().getTmpFs();
        assertEquals("rw,nosuid,nodev,mode=1777", tmpfs.get("/tmp"));
        assertEquals("rw,nosuid,nodev,mode=1777", tmpfs.get("/var/tmp"));
        assertTrue(tmpfs.get("/run/lock").startsWith("ro,"), "Debian's world-writable /run/lock: empty, read-only");
    }

    @Test
    void aPoolsRunAsUserIsItsJobsUserAndTheirGroupIsNeverRoots() {
        assertEquals(new ContainerFactory.JobUser(1000, 1000), ContainerFactory.jobUser(template(null, null), 7));
        PodTemplate group = new PodTemplate(
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
                        .build(),
                null);
        assertEquals(new ContainerFactory.JobUser(1000, 100), ContainerFactory.jobUser(group, 7));
        PodTemplate none = new PodTemplate("img", null, null, null, null, null, null, null, null, null, null);
        assertEquals(new ContainerFactory.JobUser(7, 7), ContainerFactory.jobUser(none, 7));
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
        assertTrue(
                ContainerFactory.unsupported(root).orElseThrow().contains("never run as root"),
                "a pool cannot make its jobs root beside their agent");
    }

    @Test
    void aContainersProcessesAreBoundedByThePoolsPidsOrTheDefault() {
        assertEquals(
                ContainerFactory.DEFAULT_PIDS_LIMIT,
                ContainerFactory.container("train", "p1", spec(template(null, null)), SETTINGS)
                        .host()
                        .getPidsLimit());
        PodTemplate t = template(null, null);
        t.resources().getLimits().put("pids", new Quantity("256"));
        assertEquals(
                256L,
                ContainerFactory.container("train", "p1", spec(t), SETTINGS)
                        .host()
                        .getPidsLimit());
        var unbounded = SETTINGS.withPidsLimit(0);
        assertEquals(
                null,
                ContainerFactory.container("train", "p1", spec(template(null, null)), unbounded)
                        .host()
                        .getPidsLimit());
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
        assertTrue(p.env().contains("WARMPOOL_RUN_AS=1000:1000"), "the pool's runAsUser is its jobs' user");
    }

    @Test
    void aPinnedCertificateIsNamedBesideTheUrlFileAndOnlyThen() {
        String noCert = String.join(
                " ",
                ContainerFactory.container("train", "p1", spec(template(null, null)), SETTINGS)
                        .env());
        assertFalse(noCert.contains("WARMPOOL_REDIS_CERT_FILE"), noCert);
        ContainerFactory.Settings pinned =
                SETTINGS.withRedis("rediss://172.17.0.1:6380", "-----BEGIN CERTIFICATE-----\n...");
        ContainerFactory.Plan p = ContainerFactory.container("train", "p1", spec(template(null, null)), pinned);
        assertTrue(
                p.env().contains("WARMPOOL_REDIS_CERT_FILE=/run/warmpool/secret/redis-cert"),
                p.env().toString());
        assertEquals(
                "rediss://wp-agent-train:pw@172.17.0.1:6380",
                ContainerFactory.forContainers("rediss://wp-agent-train:pw@127.0.0.1:6380", pinned.redisUrl()));
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
        assertTrue(ContainerFactory.unsupported(hostPath).isEmpty(), "the policy refuses it, not the runtime");
        PodTemplate configMap = volumes(
                new VolumeBuilder()
                        .withName("conf")
                        .withNewConfigMap()
                        .withName("c")
                        .endConfigMap()
                        .build(),
                "/conf",
                false);
        assertTrue(ContainerFactory.unsupported(configMap).orElseThrow().contains("persistentVolumeClaim"));
        PodTemplate badClaim = volumes(
                new VolumeBuilder()
                        .withName("data")
                        .withNewPersistentVolumeClaim("/etc", false)
                        .build(),
                "/data",
                false);
        assertTrue(ContainerFactory.unsupported(badClaim).orElseThrow().contains("claimName"));
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

    static PodTemplate volumes(Volume v, String mountPath, boolean readOnly) {
        return new PodTemplate(
                "img",
                null,
                null,
                null,
                null,
                null,
                null,
                List.of(v),
                List.of(new VolumeMountBuilder()
                        .withName(v.getName())
                        .withMountPath(mountPath)
                        .withReadOnly(readOnly)
                        .build()),
                null,
                null);
    }

    @Test
    void aClaimIsTheDockerNamedVolumeOfItsNameAndAHostPathOnlyWhereThePolicyAllowsIt() {
        PodTemplate claim = volumes(
                new VolumeBuilder()
                        .withName("data")
                        .withNewPersistentVolumeClaim("datasets", false)
                        .build(),
                "/data",
                true);
        var binds = ContainerFactory.container("train", "p1", spec(claim), SETTINGS)
                .host()
                .getBinds();
        assertEquals(
                List.of("/srv/bundle:/opt/warmpool:ro", "datasets:/data:ro"),
                List.of(binds).stream().map(Object::toString).toList());
        assertTrue(ContainerFactory.unsupported(claim).isEmpty());

        PodTemplate host = volumes(
                new VolumeBuilder()
                        .withName("h")
                        .withNewHostPath("/srv/x", null)
                        .build(),
                "/x",
                false);
        var refused = Assertions.assertThrows(
                IllegalArgumentException.class, () -> ContainerFactory.container("train", "p1", spec(host), SETTINGS));
        assertTrue(refused.getMessage().contains("warmpool.policy.allow-host-access"));
        var allowed = new ContainerFactory.Settings(
                "redis://172.17.0.1:6380", Path.of("/srv/bundle"), "bridge", "i", 2000, 604800, 10_000, null, true);
        assertEquals(
                "/srv/x:/x:rw",
                ContainerFactory.container("train", "p1", spec(host), allowed)
                        .host()
                        .getBinds()[1]
                        .toString());
    }

    @Test
    void aProcessorsDevicesAreADeviceRequestAndALabelNotAnEnvVariable() {
        ContainerFactory.Plan p =
                ContainerFactory.container("train", "p1", spec(template(null, null)), SETTINGS, List.of("0", "3"));
        var requests = p.host().getDeviceRequests();
        assertEquals(1, requests.size());
        assertEquals(List.of("0", "3"), requests.get(0).getDeviceIds());
        assertEquals(List.of(List.of("gpu")), requests.get(0).getCapabilities());
        assertEquals("0,3", p.labels().get(ContainerFactory.DEVICES));
        // Docker's NVIDIA runtime shows the container its devices only, numbered from 0
        assertTrue(
                p.env().stream().noneMatch(e -> e.startsWith("CUDA_VISIBLE_DEVICES")),
                p.env().toString());
        var none = ContainerFactory.container("train", "p1", spec(template(null, null)), SETTINGS);
        assertTrue(none.host().getDeviceRequests() == null
                || none.host().getDeviceRequests().isEmpty());
        assertFalse(none.labels().containsKey(ContainerFactory.DEVICES));
    }

    @Test
    void aGangMemberJoinsItsGangsNetworkWhereItsProcessorIdIsItsName() {
        PoolSpec gang = PoolSpec.builder()
                .command(List.of("sh", "-c", "hostname"))
                .minIdle(1)
                .maxSize(1)
                .idleTimeoutSeconds(300)
                .env(Map.of())
                .maxQueued(100)
                .template(template(null, null))
                .worker("process")
                .gang(Map.of(
                        "ps", new PoolSpec.GangRole(1, null, null), "worker", new PoolSpec.GangRole(2, null, null)))
                .build();
        ContainerFactory.Plan p = ContainerFactory.container("tf", "g7-2", gang, SETTINGS);
        assertEquals("wp-tf-g7", p.gangNetwork().orElseThrow());
        assertEquals("g7", p.labels().get(Labels.GANG));
        assertTrue(p.env().contains("WARMPOOL_MEMBER_ADDR=g7-2:2222"), p.env().toString());
        assertEquals("bridge", p.host().getNetworkMode(), "it stays on the runtime's network, where Redis is");
        ContainerFactory.Plan single = ContainerFactory.container("train", "p1", spec(template(null, null)), SETTINGS);
        assertTrue(single.gangNetwork().isEmpty());
        assertTrue(single.env().stream().noneMatch(e -> e.startsWith("WARMPOOL_MEMBER_ADDR")));
    }
}
