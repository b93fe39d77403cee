package dev.warmpool.runtime.kubernetes;

import dev.warmpool.pool.PodTemplate;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.protocol.AgentEnv;
import dev.warmpool.runtime.Labels;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The pod of a processor, as a pure function of the pool, the processor id and the settings:
 * names are deterministic (so a repeated create is a no-op), labels say whose pod it is, and the
 * owner is the pool's ConfigMap, so deleting the pool lets Kubernetes collect its pods.
 */
public final class PodFactory {
    /** Where the init container puts the agent, and the launcher the main container starts. */
    public static final String AGENT_DIR = "/opt/warmpool";

    public static final String AGENT_LAUNCHER = AGENT_DIR + "/bin/warmpool-agent";
    /** What the agent image holds: AGENT_IMAGE_DIR is copied to AGENT_DIR. */
    public static final String AGENT_IMAGE_DIR = "/warmpool";

    static final String AGENT_VOLUME = "warmpool-agent";
    /**
     * With a Redis Secret: an init step copies its URL into {@link #REDIS_URL_FILE}, on a memory
     * emptyDir, which the agent reads and deletes at start, before any job runs. Never an env
     * variable: a job (the same user in the same container) reads {@code /proc/<agent>/environ}.
     */
    static final String SECRET_VOLUME = "warmpool-redis-secret";

    static final String SECRET_DIR = "/var/run/warmpool-secret";
    static final String RUN_VOLUME = "warmpool-run";
    static final String RUN_DIR = "/var/run/warmpool";
    public static final String REDIS_URL_FILE = RUN_DIR + "/redis-url";
    /** A gang member's pod carries it (beside {@link Labels#GANG}): the Service selects it. */
    public static final String GANG_MEMBER = "warmpool.dev/gang-member";
    /** The port on which a gang member's job serves the others (TensorFlow's default). */
    public static final int GANG_PORT = 2222;
    /** The room's init: in the agent bundle the init container copies; at /usr/local/bin in a built-in agent's image. */
    public static final String ROOM_INIT = AGENT_DIR + "/bin/wp-room";

    /** Where Dockerfile.agent puts wp-room: the agent runs it by this path, not a PATH lookup. */
    public static final String BUILT_IN_ROOM_INIT = "/usr/local/bin/wp-room";
    /**
     * The uid jobs run as when the template names none: the first of the docker runtime's range,
     * a block no user of the node or of an image holds. One for every pod: each pod's jobs are
     * apart from the others' by their PID and IPC namespaces, as with one uid per container on docker.
     */
    public static final long JOB_UID = 1_879_048_192L;
    /** What the agent (root in its container) keeps: switching to the jobs' user and clearing up after a job. */
    public static final List<String> AGENT_CAPABILITIES =
            List.of("CHOWN", "DAC_OVERRIDE", "FOWNER", "SETUID", "SETGID", "KILL");

    /**
     * What every pod shares: where Redis is, how often to heartbeat, where events go. With
     * {@code redisSecret} ({@code <secret>/<key>}) the Redis URL, password and all, reaches the
     * agent from that Secret, and the pod spec (readable by anyone who may list pods) holds only
     * the reference. {@code logLines}: the live log kept per job ({@code warmpool.jobs.log-lines});
     * {@code maxResultBytes}: the most of a job's result an agent reads ({@code warmpool.runtime.max-result-bytes}).
     */
    public record Settings(
            String redisUrl,
            String agentImage,
            long heartbeatMillis,
            long retentionSeconds,
            String sink,
            String redisSecret,
            int logLines,
            int maxResultBytes) {
        public Settings(String redisUrl, String agentImage, long heartbeatMillis, long retentionSeconds, String sink) {
            this(redisUrl, agentImage, heartbeatMillis, retentionSeconds, sink, null, 10_000);
        }

        /** With the agent's default bound of a result file (1 MiB). */
        public Settings(
                String redisUrl,
                String agentImage,
                long heartbeatMillis,
                long retentionSeconds,
                String sink,
                String redisSecret,
                int logLines) {
            this(redisUrl, agentImage, heartbeatMillis, retentionSeconds, sink, redisSecret, logLines, 1 << 20);
        }
    }

    private PodFactory() {}

    public static String podName(String type, String processorId) {
        return "wp-" + type + "-" + processorId;
    }

    public static String ownerName(String type) {
        return "wp-pool-" + type;
    }

    /** The headless Service that gives every gang member of the pool a stable DNS name. */
    public static String gangServiceName(String type) {
        return "wp-" + type + "-gang";
    }

    /**
     * A gang pool's headless Service: each member pod sets {@code hostname} (its member id) and
     * {@code subdomain} (this Service), so the others reach it at
     * {@code <member>.wp-<type>-gang:2222} as soon as it is scheduled, ready or not.
     */
    public static Service gangService(String type, ConfigMap owner) {
        return new ServiceBuilder()
                .withNewMetadata()
                .withName(gangServiceName(type))
                .addToLabels(Labels.MANAGED_BY, Labels.MANAGER)
                .addToLabels(Labels.POOL, type)
                .withOwnerReferences(ownedBy(owner))
                .endMetadata()
                .withNewSpec()
                .withClusterIP("None")
                .withPublishNotReadyAddresses(true)
                .addToSelector(Labels.POOL, type)
                .addToSelector(GANG_MEMBER, "true")
                .addNewPort()
                .withName("gang")
                .withPort(GANG_PORT)
                .withNewTargetPort(GANG_PORT)
                .endPort()
                .endSpec()
                .build();
    }

    /** A reference to the pool's ConfigMap: deleting it lets Kubernetes collect what it owns. */
    static OwnerReference ownedBy(ConfigMap owner) {
        return new OwnerReferenceBuilder()
                .withApiVersion("v1")
                .withKind("ConfigMap")
                .withName(owner.getMetadata().getName())
                .withUid(owner.getMetadata().getUid())
                .withBlockOwnerDeletion(true)
                .build();
    }

    /** The gang of a member id ({@code <gang id>-<n>}). */
    public static String gangOf(String memberId) {
        int dash = memberId.lastIndexOf('-');
        return dash < 0 ? memberId : memberId.substring(0, dash);
    }

    /** The pool's owner object: a ConfigMap that shows operators the spec, and owns the pods. */
    public static ConfigMap owner(String type, String specJson) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(ownerName(type))
                .addToLabels(Labels.MANAGED_BY, Labels.MANAGER)
                .addToLabels(Labels.POOL, type)
                .endMetadata()
                .addToData("spec.json", specJson)
                .build();
    }

    public static Pod pod(String type, String processorId, PoolSpec spec, ConfigMap owner, Settings s) {
        PodTemplate t = spec.template();
        if (t == null) {
            throw new IllegalArgumentException("pool " + type + " has no template: PUT it with a \"template\" "
                    + "(at least an \"image\") to run it on Kubernetes");
        }
        boolean init = PodTemplate.INIT_CONTAINER.equals(t.agentMode());
        List<VolumeMount> mounts = new ArrayList<>(t.volumeMounts() == null ? List.of() : t.volumeMounts());
        List<Volume> volumes = new ArrayList<>(t.volumes() == null ? List.of() : t.volumes());
        if (init) {
            volumes.add(new VolumeBuilder()
                    .withName(AGENT_VOLUME)
                    .withNewEmptyDir()
                    .endEmptyDir()
                    .build());
            mounts.add(new VolumeMountBuilder()
                    .withName(AGENT_VOLUME)
                    .withMountPath(AGENT_DIR)
                    .withReadOnly(true)
                    .build());
        }
        if (s.redisSecret() != null) {
            // the Secret is mounted into the init step only; the agent reads the copy and deletes it
            volumes.add(new VolumeBuilder()
                    .withName(SECRET_VOLUME)
                    .withNewSecret()
                    .withSecretName(secretName(s))
                    .addNewItem()
                    .withKey(secretKey(s))
                    .withPath("url")
                    .endItem()
                    .withDefaultMode(0444)
                    .endSecret()
                    .build());
            volumes.add(new VolumeBuilder()
                    .withName(RUN_VOLUME)
                    .withNewEmptyDir()
                    .withMedium("Memory")
                    .endEmptyDir()
                    .build());
            mounts.add(new VolumeMountBuilder()
                    .withName(RUN_VOLUME)
                    .withMountPath(RUN_DIR)
                    .build());
        }
        ContainerBuilder main = new ContainerBuilder()
                .withName("processor")
                .withImage(t.image())
                .withCommand(init ? AGENT_LAUNCHER : "warmpool-agent")
                .withEnv(env(type, processorId, spec, t, s))
                .withResources(t.resources())
                .withVolumeMounts(mounts)
                .withSecurityContext(agent(t.securityContext()));
        PodBuilder pod = new PodBuilder()
                .withNewMetadata()
                .withName(podName(type, processorId))
                .addToLabels(Labels.MANAGED_BY, Labels.MANAGER)
                .addToLabels(Labels.POOL, type)
                .addToLabels(Labels.PROCESSOR, processorId)
                .withOwnerReferences(ownedBy(owner))
                .endMetadata()
                .withNewSpec()
                // a processor that dies is replaced by the reconciler, not restarted in place
                .withRestartPolicy("Never")
                .withServiceAccountName(t.serviceAccountName())
                .withAutomountServiceAccountToken(Boolean.TRUE.equals(t.automountServiceAccountToken()))
                .withNodeSelector(t.nodeSelector())
                .withTolerations(t.tolerations())
                .withVolumes(volumes)
                .withNewSecurityContext()
                .withNewSeccompProfile()
                .withType("RuntimeDefault")
                .endSeccompProfile()
                .endSecurityContext()
                .withContainers(main.build())
                .endSpec();
        if (spec.isGang()) {
            pod = new PodBuilder(pod.build())
                    .editMetadata()
                    .addToLabels(Labels.GANG, gangOf(processorId))
                    .addToLabels(GANG_MEMBER, "true")
                    .endMetadata()
                    .editSpec()
                    .withHostname(processorId)
                    .withSubdomain(gangServiceName(type))
                    .editFirstContainer()
                    .addNewPort()
                    .withName("gang")
                    .withContainerPort(GANG_PORT)
                    .endPort()
                    .endContainer()
                    .endSpec();
        }
        if (s.redisSecret() != null) {
            pod.editSpec()
                    .addNewInitContainer()
                    .withName("warmpool-redis-url")
                    .withImage(s.agentImage())
                    .withCommand("cp", SECRET_DIR + "/url", REDIS_URL_FILE)
                    .addNewVolumeMount()
                    .withName(SECRET_VOLUME)
                    .withMountPath(SECRET_DIR)
                    .withReadOnly(true)
                    .endVolumeMount()
                    .addNewVolumeMount()
                    .withName(RUN_VOLUME)
                    .withMountPath(RUN_DIR)
                    .endVolumeMount()
                    .withSecurityContext(strict())
                    .endInitContainer()
                    .endSpec();
        }
        if (init) {
            pod.editSpec()
                    .addNewInitContainer()
                    .withName("warmpool-agent")
                    .withImage(s.agentImage())
                    .withCommand("cp", "-R", AGENT_IMAGE_DIR + "/.", AGENT_DIR + "/")
                    .addNewVolumeMount()
                    .withName(AGENT_VOLUME)
                    .withMountPath(AGENT_DIR)
                    .endVolumeMount()
                    .withSecurityContext(strict())
                    .endInitContainer()
                    .endSpec();
        }
        return pod.build();
    }

    private static String secretName(Settings s) {
        int slash = s.redisSecret().indexOf('/');
        return slash < 0 ? s.redisSecret() : s.redisSecret().substring(0, slash);
    }

    private static String secretKey(Settings s) {
        int slash = s.redisSecret().indexOf('/');
        return slash < 0 ? "url" : s.redisSecret().substring(slash + 1);
    }

    /**
     * The processor container's settings: its agent runs as root with only {@link
     * #AGENT_CAPABILITIES} (every one of them within the baseline Pod Security profile), no
     * privilege escalation, the runtime's seccomp profile, and starts each job as the jobs' user
     * through {@code wp-room}. Of the template's {@code securityContext} it keeps what is not the
     * user's or the capabilities' ({@code readOnlyRootFilesystem}, {@code privileged} where the
     * policy allows it, SELinux, AppArmor, seccomp); its {@code runAsUser}/{@code runAsGroup}
     * are the jobs' (see {@link #jobUser}).
     */
    static SecurityContext agent(SecurityContext template) {
        SecurityContextBuilder b =
                template == null ? new SecurityContextBuilder() : new SecurityContextBuilder(template);
        boolean privileged = template != null && Boolean.TRUE.equals(template.getPrivileged());
        b.withRunAsUser(0L)
                .withRunAsGroup(0L)
                .withRunAsNonRoot(false)
                // Kubernetes refuses a privileged container that asks for no escalation
                .withAllowPrivilegeEscalation(privileged ? null : false)
                .withNewCapabilities()
                .addToDrop("ALL")
                .addToAdd(AGENT_CAPABILITIES.toArray(String[]::new))
                .endCapabilities();
        if (template == null || template.getSeccompProfile() == null) {
            b.withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile();
        }
        return b.build();
    }

    /**
     * The jobs' user as {@code WARMPOOL_RUN_AS} says it: the template's {@code runAsUser} (the
     * image's files may need it), else {@link #JOB_UID}; its {@code runAsGroup}, else the uid's number.
     */
    static String jobUser(PodTemplate t) {
        SecurityContext sc = t.securityContext();
        long uid = sc == null || sc.getRunAsUser() == null ? JOB_UID : sc.getRunAsUser();
        long gid = sc == null || sc.getRunAsGroup() == null ? uid : sc.getRunAsGroup();
        return uid + ":" + gid;
    }

    /** The problem with running {@code t} as a pod, if any: what a PUT is refused for. */
    public static Optional<String> unsupported(PodTemplate t) {
        SecurityContext sc = t.securityContext();
        if (sc != null && Long.valueOf(0).equals(sc.getRunAsUser())) {
            return Optional.of("securityContext.runAsUser names the jobs' user, and jobs never run as root "
                    + "(0): name the image's user (e.g. 1000), or leave it out for a uid no image holds ("
                    + JOB_UID + ")");
        }
        return Optional.empty();
    }

    /** The restricted Pod Security profile's container settings: the init containers', which run no job. */
    static SecurityContext strict() {
        return new SecurityContextBuilder()
                .withAllowPrivilegeEscalation(false)
                .withRunAsNonRoot(true)
                .withNewCapabilities()
                .addToDrop("ALL")
                .endCapabilities()
                .withNewSeccompProfile()
                .withType("RuntimeDefault")
                .endSeccompProfile()
                .build();
    }

    private static List<EnvVar> env(String type, String processorId, PoolSpec spec, PodTemplate t, Settings s) {
        Map<String, String> env = new LinkedHashMap<>();
        if (t.env() != null) {
            env.putAll(t.env());
        }
        if (s.redisSecret() == null) {
            env.put(AgentEnv.REDIS_URL, s.redisUrl());
        }
        env.put(AgentEnv.POOL, type);
        env.put(AgentEnv.PROCESSOR_ID, processorId);
        env.put(AgentEnv.HEARTBEAT_INTERVAL_MS, Long.toString(s.heartbeatMillis()));
        env.put(AgentEnv.RETENTION_SECONDS, Long.toString(s.retentionSeconds()));
        env.put(AgentEnv.LOG_LINES, Integer.toString(s.logLines()));
        env.put(AgentEnv.MAX_RESULT_BYTES, Integer.toString(s.maxResultBytes()));
        // the container is the room: wp-room starts each job as the jobs' user and clears up after it
        env.put(AgentEnv.SANDBOX, "room");
        env.put(AgentEnv.RUN_AS, jobUser(t));
        env.put(AgentEnv.ROOM_INIT, PodTemplate.INIT_CONTAINER.equals(t.agentMode()) ? ROOM_INIT : BUILT_IN_ROOM_INIT);
        if (s.sink() != null) {
            env.put("K_SINK", s.sink());
        }
        if (spec.isGang()) {
            env.put(AgentEnv.MEMBER_ADDR, processorId + "." + gangServiceName(type) + ":" + GANG_PORT);
        }
        if (s.redisSecret() != null) {
            env.put(AgentEnv.REDIS_URL_FILE, REDIS_URL_FILE);
        }
        List<EnvVar> out = new ArrayList<>();
        // the agent passes these names of its own environment on to jobs (besides a small safe
        // base): what the template sets for the training image, never warmpool's own variables
        if (t.env() != null && !t.env().isEmpty()) {
            env.put(AgentEnv.PASS_ENV, String.join(",", new TreeSet<>(t.env().keySet())));
        }
        env.forEach((k, v) -> out.add(new EnvVar(k, v, null)));
        return out;
    }
}
