package dev.warmpool.runtime.docker;

import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.DeviceRequest;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Volume;
import dev.warmpool.config.ConfigCheck;
import dev.warmpool.pool.PodTemplate;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.protocol.AgentEnv;
import dev.warmpool.protocol.PinnedCertificate;
import dev.warmpool.runtime.Labels;
import dev.warmpool.runtime.ResourceLimits;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecurityContext;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The container of a processor, as a pure function of the pool, the processor id and the
 * settings: the same {@code template} a Kubernetes pool has, read as a pod's one container would
 * be. Labels say whose container it is, and which warmpool's (one Docker may serve several).
 * The container is the room: its agent runs as root with only the capabilities it needs to
 * start each job as the jobs' user through {@code wp-room} and to clear up after it
 * ({@link #AGENT_CAPABILITIES}), no privilege escalation, never privileged, never the host's
 * network or PIDs; its jobs run as a uid of their own with no capabilities at all.
 */
public final class ContainerFactory {
    /** Which warmpool (its Redis, without credentials) a container belongs to. */
    public static final String INSTANCE = "warmpool.dev/instance";
    /** The devices (GPUs) a container was given: a manager that restarts reads them back. */
    public static final String DEVICES = "warmpool.dev/devices";
    /** The uid a container's jobs run as: a manager that restarts reads it back, and gives it to no other. */
    public static final String JOB_UID = "warmpool.dev/job-uid";
    /**
     * What the agent (root in its container) keeps: switching to the jobs' user (SETUID, SETGID),
     * killing what a job left (KILL), removing what it left in /tmp and handing a job its files
     * (CHOWN, DAC_OVERRIDE, FOWNER). Not SYS_PTRACE, SYS_ADMIN, NET_*, SETPCAP or SETFCAP.
     */
    public static final List<Capability> AGENT_CAPABILITIES = List.of(
            Capability.CHOWN,
            Capability.DAC_OVERRIDE,
            Capability.FOWNER,
            Capability.SETUID,
            Capability.SETGID,
            Capability.KILL);
    /**
     * The dirs every user may write, a tmpfs each: writable on a read-only root too, and holding
     * nothing but what this container's processes put there, so the room wipes what a job left
     * without touching the image's files.
     */
    public static final List<String> SHARED_TMP = List.of("/tmp", "/var/tmp");
    /** Mount options of {@link #SHARED_TMP} and of emptyDir volumes: writable by the jobs' user, as on Kubernetes. */
    static final String TMPFS_OPTIONS = "rw,nosuid,nodev,mode=1777";
    /**
     * Debian's /run/lock (and /var/lock, a link to it) is world-writable and the room does not
     * wipe it: an empty read-only tmpfs, so no job leaves a file there for the next (Docker copies
     * the image dir's mode 1777 onto a tmpfs, whatever its {@code mode}).
     */
    static final String RUN_LOCK = "/run/lock";
    /** The port on which a gang member's job serves the others (TensorFlow's default, as on Kubernetes). */
    public static final int GANG_PORT = 2222;

    public static final String AGENT_DIR = "/opt/warmpool";
    public static final String AGENT_LAUNCHER = AGENT_DIR + "/bin/warmpool-agent";
    /** The room's init in the agent bundle; a built-in agent's image has it at {@link #BUILT_IN_ROOM_INIT}. */
    public static final String ROOM_INIT = AGENT_DIR + "/bin/wp-room";

    /** Where Dockerfile.agent puts wp-room: the agent runs it by this path, not a PATH lookup. */
    public static final String BUILT_IN_ROOM_INIT = "/usr/local/bin/wp-room";
    /**
     * An anonymous volume into which the runtime copies the Redis URL file before the container
     * starts ({@code docker cp} writes into a volume even on a read-only root); the agent reads and
     * deletes it at start, before any job runs. Never in Config.Env or Cmd, which {@code docker inspect} shows.
     */
    public static final String SECRET_VOLUME = "/run/warmpool";

    public static final String SECRET_DIR = SECRET_VOLUME + "/secret";
    public static final String REDIS_URL_FILE = SECRET_DIR + "/redis-url";
    /** The certificate its Redis must present, copied beside the URL when the manager pins one. */
    public static final String REDIS_CERT_FILE = SECRET_DIR + "/redis-cert";

    /**
     * What every container shares: {@code redisUrl} as containers reach it (no credentials),
     * {@code agentBundle} the host dir mounted at /opt/warmpool, {@code instance} this warmpool's label,
     * {@code redisCertificate} the PEM of the certificate its Redis must present (null: none pinned).
     */
    public record Settings(
            String redisUrl,
            Path agentBundle,
            String network,
            String instance,
            long heartbeatMillis,
            long retentionSeconds,
            int logLines,
            String sink,
            boolean allowHostAccess,
            long pidsLimit,
            String redisCertificate,
            int maxResultBytes) {
        /** The settings with the defaults: {@code warmpool.runtime.pids-limit}, no pinned Redis certificate, a 1 MiB result. */
        public Settings(
                String redisUrl,
                Path agentBundle,
                String network,
                String instance,
                long heartbeatMillis,
                long retentionSeconds,
                int logLines,
                String sink,
                boolean allowHostAccess) {
            this(
                    redisUrl,
                    agentBundle,
                    network,
                    instance,
                    heartbeatMillis,
                    retentionSeconds,
                    logLines,
                    sink,
                    allowHostAccess,
                    DEFAULT_PIDS_LIMIT,
                    null,
                    1 << 20);
        }

        /** These settings with another PID bound (0: none). */
        public Settings withPidsLimit(long pids) {
            return new Settings(
                    redisUrl,
                    agentBundle,
                    network,
                    instance,
                    heartbeatMillis,
                    retentionSeconds,
                    logLines,
                    sink,
                    allowHostAccess,
                    pids,
                    redisCertificate,
                    maxResultBytes);
        }

        /** These settings with a pinned Redis certificate (PEM) and the Redis URL containers use. */
        public Settings withRedis(String url, String certificate) {
            return new Settings(
                    url,
                    agentBundle,
                    network,
                    instance,
                    heartbeatMillis,
                    retentionSeconds,
                    logLines,
                    sink,
                    allowHostAccess,
                    pidsLimit,
                    certificate,
                    maxResultBytes);
        }
    }

    /** {@code warmpool.runtime.pids-limit}'s default. */
    public static final long DEFAULT_PIDS_LIMIT = 4096;

    /**
     * What a create call needs: {@code user} the container's ({@code 0:0}, the agent's, whatever
     * the image's USER), {@code uid} the owner of the agent's secret file (0), {@code jobUser} the
     * user its jobs run as.
     */
    public record Plan(
            String name,
            String image,
            List<String> entrypoint,
            List<String> env,
            Map<String, String> labels,
            HostConfig host,
            Optional<String> user,
            Optional<Long> uid,
            Optional<String> gangNetwork,
            JobUser jobUser) {}

    /** The user a container's jobs run as, as {@code WARMPOOL_RUN_AS} says it. */
    public record JobUser(long uid, long gid) {
        public String runAs() {
            return uid + ":" + gid;
        }
    }

    private ContainerFactory() {}

    public static String containerName(String type, String processorId) {
        return "wp-" + type + "-" + processorId;
    }

    public static Plan container(String type, String processorId, PoolSpec spec, Settings s) {
        return container(type, processorId, spec, s, List.of());
    }

    /** A container whose jobs run as the pool's user, else as the first uid of the default range. */
    public static Plan container(String type, String processorId, PoolSpec spec, Settings s, List<String> devices) {
        return container(type, processorId, spec, s, devices, jobUser(spec.template(), JobUids.DEFAULT.first()));
    }

    /** The uid the pool names for its jobs ({@code template.securityContext.runAsUser}), if it names one. */
    public static Optional<Long> poolUid(PodTemplate t) {
        return t == null || t.securityContext() == null
                ? Optional.empty()
                : Optional.ofNullable(t.securityContext().getRunAsUser());
    }

    /**
     * The jobs' user: the pool's {@code runAsUser} (the admin's choice: the image's files may need
     * it), else {@code allocated}; its {@code runAsGroup}, else the group of the uid's own number
     * (never root's group).
     */
    public static JobUser jobUser(PodTemplate t, long allocated) {
        long uid = poolUid(t).orElse(allocated);
        Long group = t == null || t.securityContext() == null
                ? null
                : t.securityContext().getRunAsGroup();
        return new JobUser(uid, group == null ? uid : group);
    }

    /** The network of one gang: its members, and only they, reach each other there by their processor ids. */
    public static String gangNetwork(String type, String memberId) {
        return "wp-" + type + "-" + gangOf(memberId);
    }

    /** The gang of a member id ({@code <gang id>-<n>}). */
    public static String gangOf(String memberId) {
        int dash = memberId.lastIndexOf('-');
        return dash < 0 ? memberId : memberId.substring(0, dash);
    }

    /**
     * {@code devices}: the GPUs this processor holds, asked of Docker as an NVIDIA device request;
     * {@code jobs}: the user its jobs run as (see {@link #jobUser}).
     */
    public static Plan container(
            String type, String processorId, PoolSpec spec, Settings s, List<String> devices, JobUser jobs) {
        PodTemplate t = spec.template();
        if (t == null || t.image() == null) {
            throw new IllegalArgumentException("pool " + type + " has no template image: PUT it with "
                    + "\"template\": {\"image\": ...} to run it on docker");
        }
        boolean init = PodTemplate.INIT_CONTAINER.equals(t.agentMode());
        SecurityContext sc = t.securityContext();
        boolean readOnly = sc != null && Boolean.TRUE.equals(sc.getReadOnlyRootFilesystem());
        HostConfig host = HostConfig.newHostConfig()
                .withNetworkMode(s.network())
                .withPrivileged(false)
                .withCapDrop(Capability.ALL)
                .withCapAdd(AGENT_CAPABILITIES.toArray(Capability[]::new))
                .withSecurityOpts(List.of("no-new-privileges"))
                // a small init as PID 1 reaps what jobs leave behind and passes signals on to the agent
                .withInit(true)
                .withReadonlyRootfs(readOnly)
                .withNanoCPUs(limit(t, "cpu")
                        .map(c -> c.multiply(BigDecimal.valueOf(1_000_000_000L)).longValue())
                        .orElse(null))
                .withMemory(limit(t, "memory").map(BigDecimal::longValue).orElse(null))
                .withPidsLimit(ResourceLimits.pidsBound(t, s.pidsLimit()).orElse(null));
        if (init) {
            host.withBinds(new Bind(s.agentBundle().toAbsolutePath().toString(), new Volume(AGENT_DIR), AccessMode.ro));
        }
        List<Bind> binds = new ArrayList<>(host.getBinds() == null ? List.of() : List.of(host.getBinds()));
        binds.addAll(Volumes.binds(t, s.allowHostAccess()));
        if (!binds.isEmpty()) {
            host.withBinds(binds);
        }
        // jobs' own dirs and the agent's (the JVM's too) on a read-only root; wiped between jobs on any
        Map<String, String> tmpfs = new LinkedHashMap<>();
        SHARED_TMP.forEach(path -> tmpfs.put(path, TMPFS_OPTIONS));
        tmpfs.put(RUN_LOCK, "ro,nosuid,nodev,noexec");
        emptyDirs(t).forEach(path -> tmpfs.put(path, TMPFS_OPTIONS));
        binds.forEach(b -> tmpfs.remove(b.getVolume().getPath())); // a volume the pool mounts there wins
        host.withTmpFs(tmpfs);
        if (!devices.isEmpty()) {
            host.withDeviceRequests(List.of(
                    new DeviceRequest().withDeviceIds(List.copyOf(devices)).withCapabilities(List.of(List.of("gpu")))));
        }
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(Labels.MANAGED_BY, Labels.MANAGER);
        labels.put(INSTANCE, s.instance());
        labels.put(Labels.POOL, type);
        labels.put(Labels.PROCESSOR, processorId);
        if (!devices.isEmpty()) {
            labels.put(DEVICES, String.join(",", devices));
        }
        if (spec.isGang()) {
            labels.put(Labels.GANG, gangOf(processorId));
        }
        labels.put(JOB_UID, Long.toString(jobs.uid()));
        return new Plan(
                containerName(type, processorId),
                t.image(),
                List.of(init ? AGENT_LAUNCHER : "warmpool-agent"),
                env(type, processorId, spec, s, jobs, init ? ROOM_INIT : BUILT_IN_ROOM_INIT),
                labels,
                host,
                Optional.of("0:0"),
                Optional.of(0L),
                spec.isGang() ? Optional.of(gangNetwork(type, processorId)) : Optional.empty(),
                jobs);
    }

    /**
     * The URL an agent in a container connects with: the user and password of {@code agentUrl}
     * (its pool's, as the manager reaches Redis) at the host and port of {@code containerRedis}.
     */
    public static String forContainers(String agentUrl, String containerRedis) {
        URI a = URI.create(agentUrl);
        URI c = URI.create(containerRedis);
        return c.getScheme() + "://" + (a.getRawUserInfo() == null ? "" : a.getRawUserInfo() + "@") + c.getHost()
                + (c.getPort() < 0 ? "" : ":" + c.getPort()) + (a.getRawPath() == null ? "" : a.getRawPath());
    }

    /** The manager's Redis URL as containers reach it: a loopback host becomes {@code gateway}, no credentials. */
    public static String containerRedis(String managerUrl, String gateway) {
        URI m = URI.create(managerUrl);
        String host = ConfigCheck.loopback(m.getHost()) ? gateway : m.getHost();
        return m.getScheme() + "://" + host + (m.getPort() < 0 ? "" : ":" + m.getPort());
    }

    /** A resource limit as a number: cpu in cores, memory in bytes. */
    static Optional<BigDecimal> limit(PodTemplate t, String name) {
        if (t.resources() == null
                || t.resources().getLimits() == null
                || t.resources().getLimits().get(name) == null) {
            return Optional.empty();
        }
        return Optional.of(Quantity.getAmountInBytes(t.resources().getLimits().get(name)));
    }

    /** The mount paths of the template's emptyDir volumes: a tmpfs each (the only volume kind docker maps here). */
    static List<String> emptyDirs(PodTemplate t) {
        List<String> out = new ArrayList<>();
        if (t.volumes() == null || t.volumeMounts() == null) {
            return out;
        }
        t.volumeMounts()
                .forEach(m -> t.volumes().stream()
                        .filter(v -> v.getName().equals(m.getName()) && v.getEmptyDir() != null)
                        .findFirst()
                        .ifPresent(v -> out.add(m.getMountPath())));
        return out;
    }

    /** The problem with running {@code t} on docker, if any: what a PUT is refused for. */
    public static Optional<String> unsupported(PodTemplate t) {
        if (t == null || t.image() == null || t.image().isBlank()) {
            return Optional.of("a pool on the docker runtime needs a \"template\" with an \"image\", e.g. "
                    + "{\"image\": \"python:3.12-slim\"}");
        }
        Optional<String> volumes = Volumes.unsupported(t);
        if (volumes.isPresent()) {
            return volumes;
        }
        if (poolUid(t).filter(uid -> uid == 0).isPresent()) {
            return Optional.of("securityContext.runAsUser names the jobs' user, and jobs never run as root (0): "
                    + "name the image's user (e.g. 1000), or leave it out and each container's jobs get a uid of "
                    + "their own");
        }
        for (String name : List.of("cpu", "memory")) {
            try {
                limit(t, name).filter(q -> q.signum() <= 0).ifPresent(q -> {
                    throw new IllegalArgumentException("not positive");
                });
            } catch (IllegalArgumentException e) {
                return Optional.of("resources.limits." + name
                        + " is not a positive quantity, e.g. \"2\" or \"500m\" for cpu, " + "\"512Mi\" for memory");
            }
        }
        return Optional.empty();
    }

    private static List<String> env(
            String type, String processorId, PoolSpec spec, Settings s, JobUser jobs, String roomInit) {
        PodTemplate t = spec.template();
        Map<String, String> env = new LinkedHashMap<>();
        if (t.env() != null) {
            env.putAll(t.env());
        }
        env.put(AgentEnv.POOL, type);
        env.put(AgentEnv.PROCESSOR_ID, processorId);
        env.put(AgentEnv.REDIS_URL_FILE, REDIS_URL_FILE);
        if (s.redisCertificate() != null) {
            env.put(PinnedCertificate.ENV, REDIS_CERT_FILE);
        }
        env.put(AgentEnv.HEARTBEAT_INTERVAL_MS, Long.toString(s.heartbeatMillis()));
        env.put(AgentEnv.RETENTION_SECONDS, Long.toString(s.retentionSeconds()));
        env.put(AgentEnv.LOG_LINES, Integer.toString(s.logLines()));
        env.put(AgentEnv.MAX_RESULT_BYTES, Integer.toString(s.maxResultBytes()));
        // the container is the room: wp-room starts each job as the jobs' user and clears up after it
        env.put(AgentEnv.SANDBOX, "room");
        env.put(AgentEnv.RUN_AS, jobs.runAs());
        env.put(AgentEnv.ROOM_INIT, roomInit);
        if (s.sink() != null) {
            env.put("K_SINK", s.sink());
        }
        if (spec.isGang()) {
            // the gang's network resolves a member's processor id (its alias there) to its container
            env.put(AgentEnv.MEMBER_ADDR, processorId + ":" + GANG_PORT);
        }
        // the agent passes these names of its own environment on to jobs, never warmpool's own
        if (t.env() != null && !t.env().isEmpty()) {
            env.put(AgentEnv.PASS_ENV, String.join(",", new TreeSet<>(t.env().keySet())));
        }
        List<String> out = new ArrayList<>();
        env.forEach((k, v) -> out.add(k + "=" + v));
        return out;
    }
}
