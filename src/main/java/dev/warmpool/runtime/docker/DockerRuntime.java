package dev.warmpool.runtime.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.Event;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.Volume;
import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.pool.PodTemplate;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.runtime.Devices;
import dev.warmpool.runtime.Labels;
import dev.warmpool.runtime.ProcessorRuntime;
import dev.warmpool.runtime.ResourceLimits;
import dev.warmpool.runtime.StopCommand;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.jboss.logging.Logger;

/**
 * Processors as containers of their pool's image on one Docker (or Podman) engine. Containers
 * outlive the manager and are found again by their labels; one that exits is removed here and
 * so missing from {@link #list()}, which the reconciler takes for a lost processor (its job is
 * requeued, a replacement started). Every call blocks: the reconciler makes them from its worker
 * thread, and stops (which wait for the agent to hand back its job) run on a thread of their own.
 */
public class DockerRuntime implements ProcessorRuntime {
    private static final Logger LOG = Logger.getLogger(DockerRuntime.class);
    /** How long a stopped agent gets to hand back its job before the container is killed (the agent's own grace). */
    private static final int STOP_GRACE_SECONDS = 20;

    private final DockerClient docker;
    private final ContainerFactory.Settings settings;
    /** The Redis URL an agent of a pool gets (its pool's ACL user), as the manager reaches Redis. */
    private final UnaryOperator<String> agentUrl;

    private final ExecutorService stops = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "docker-stop");
        t.setDaemon(true);
        return t;
    });
    private volatile Runnable changed = () -> {};
    /** The machine's GPUs, each held by one container at a time. */
    private final Devices devices;

    private final GangNetworks networks;
    /** The uids jobs may run as, and which live container's jobs hold which (processor id -> uid). */
    private final JobUids jobUids;

    private final Map<String, Long> uidHeld = new HashMap<>();

    public DockerRuntime(DockerClient docker, ContainerFactory.Settings settings, UnaryOperator<String> agentUrl) {
        this(docker, settings, agentUrl, new Devices(List.of()));
    }

    public DockerRuntime(
            DockerClient docker, ContainerFactory.Settings settings, UnaryOperator<String> agentUrl, Devices devices) {
        this(docker, settings, agentUrl, devices, JobUids.DEFAULT);
    }

    public DockerRuntime(
            DockerClient docker,
            ContainerFactory.Settings settings,
            UnaryOperator<String> agentUrl,
            Devices devices,
            JobUids jobUids) {
        this.docker = docker;
        this.settings = settings;
        this.agentUrl = agentUrl;
        this.devices = devices;
        this.networks = new GangNetworks(docker, settings.instance());
        this.jobUids = jobUids;
    }

    /**
     * The docker runtime from warmpool's settings ({@code warmpool.runtime.docker.*}), once its engine answers: a
     * manager that cannot reach it says so at start, with the setting to fix, rather than failing every
     * processor start later. {@code redis}: the manager's Redis; {@code agentUrl}: each pool's agent's Redis URL.
     */
    public static DockerRuntime fromConfig(
            WarmpoolConfig config, String redis, UnaryOperator<String> agentUrl, Devices devices) {
        WarmpoolConfig.Docker d = config.runtime().docker();
        String host = d.host()
                .or(() -> Optional.ofNullable(System.getenv("DOCKER_HOST")))
                .orElse("unix:///var/run/docker.sock");
        DockerClient client = DockerEngine.client(host);
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
                .orElseGet(() -> ContainerFactory.containerRedis(redis, DockerEngine.gateway(client, d.network())));
        Path bundle = d.agentBundle().orElseGet(DockerRuntime::defaultAgentBundle);
        if (d.agentBundle().isPresent() && !Files.isDirectory(bundle)) {
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
                config.redis().pinnedCertificate().map(DockerRuntime::read).orElse(null),
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
            return Files.readString(Path.of(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read warmpool.redis.pinned-certificate=" + file, e);
        }
    }

    /** target/warmpool-agent-bundle beside the running quarkus-app, else under the working directory. */
    private static Path defaultAgentBundle() {
        String cp = System.getProperty("java.class.path", "");
        if (cp.endsWith("quarkus-run.jar")) {
            Path beside = Path.of(cp).toAbsolutePath().getParent().resolveSibling("warmpool-agent-bundle");
            if (Files.isDirectory(beside)) {
                return beside;
            }
        }
        return Path.of("target", "warmpool-agent-bundle");
    }

    @Override
    public Optional<Devices> devices() {
        return Optional.of(devices);
    }

    /** A container needs a template with an image, and honours only what a container can (ContainerFactory). */
    @Override
    public Optional<ResourceLimits.Problem> templateProblem(PodTemplate template, Set<String> beside) {
        return ContainerFactory.unsupported(template)
                .map(p ->
                        new ResourceLimits.Problem("template", "This pool runs processors as containers: " + p + "."));
    }

    /**
     * A pool whose image is not on the engine is refused at its PUT, with the sentence its start
     * would fail with (warmpool does not pull); an engine that does not answer refuses nothing here:
     * the start says why, as the pool's {@code startError}.
     */
    @Override
    public Optional<ResourceLimits.Problem> commandProblem(PoolSpec spec) {
        String image = spec.template() == null ? null : spec.template().image();
        if (image == null || image.isBlank()) {
            return Optional.empty();
        }
        try {
            docker.inspectImageCmd(image).exec();
            return Optional.empty();
        } catch (NotFoundException e) {
            return Optional.of(new ResourceLimits.Problem(
                    "template.image",
                    "image " + image + " is not on this docker host: pull or build it there first"
                            + " (warmpool does not pull), then PUT the pool again"));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    @Override
    public void start(String type, String processorId, PoolSpec spec) {
        List<String> own = devices.assign(processorId, Devices.perProcessor(spec));
        try {
            ContainerFactory.JobUser jobs = ContainerFactory.jobUser(
                    spec.template(),
                    ContainerFactory.poolUid(spec.template()).isPresent() ? 0 : assignUid(processorId));
            start(type, processorId, spec, own, jobs);
        } catch (RuntimeException e) {
            devices.release(processorId);
            releaseUid(processorId);
            throw e;
        }
    }

    /** A uid of the range for the jobs of {@code processorId}: the lowest no live container of this install holds. */
    private synchronized long assignUid(String processorId) {
        Long had = uidHeld.get(processorId);
        if (had != null) {
            return had;
        }
        long uid = jobUids.free(uidHeld.values())
                .orElseThrow(() -> new IllegalStateException("every uid of warmpool.runtime.docker.job-uids (" + jobUids
                        + ") is held by a live container: give a wider range"));
        uidHeld.put(processorId, uid);
        return uid;
    }

    private synchronized void releaseUid(String processorId) {
        uidHeld.remove(processorId);
    }

    /** What the containers that are still there hold (their label): replaces what was held, as for devices. */
    private synchronized void uidsHeld(Map<String, Long> held) {
        uidHeld.clear();
        uidHeld.putAll(held);
    }

    private void start(
            String type, String processorId, PoolSpec spec, List<String> own, ContainerFactory.JobUser jobs) {
        ContainerFactory.Plan p = ContainerFactory.container(type, processorId, spec, settings, own, jobs);
        if (p.entrypoint().get(0).equals(ContainerFactory.AGENT_LAUNCHER)
                && !(Files.isExecutable(settings.agentBundle().resolve("bin/warmpool-agent"))
                        && Files.isExecutable(settings.agentBundle().resolve("runtime/bin/java")))) {
            throw new IllegalStateException(
                    "no agent bundle at " + settings.agentBundle().toAbsolutePath()
                            + ": ./mvnw package makes target/warmpool-agent-bundle, or set warmpool.runtime.docker.agent-bundle");
        }
        CreateContainerCmd create = docker.createContainerCmd(p.image())
                .withName(p.name())
                .withEntrypoint(p.entrypoint())
                .withEnv(p.env())
                .withLabels(p.labels())
                .withHostConfig(p.host())
                .withVolumes(new Volume(ContainerFactory.SECRET_VOLUME));
        p.user().ifPresent(create::withUser); // root: the agent, which starts each job as the jobs' user
        p.gangNetwork().ifPresent(n -> networks.ensure(type, n, ContainerFactory.gangOf(processorId)));
        String id;
        try {
            id = create.exec().getId();
        } catch (NotFoundException e) {
            throw new IllegalStateException(
                    "image " + p.image() + " is not on this docker host: pull or build it there"
                            + " (warmpool does not pull)",
                    e);
        }
        try {
            p.gangNetwork().ifPresent(n -> networks.join(id, n, processorId));
            // the owner the archive says (root's): the engine would look "0:0" up in the image's passwd
            long uid = p.uid().orElse(0L);
            String url = ContainerFactory.forContainers(agentUrl.apply(type), settings.redisUrl());
            Tar tar = new Tar().dir("secret", uid, 0700).file("secret/redis-url", uid, 0600, url);
            if (settings.redisCertificate() != null) {
                tar.file("secret/redis-cert", uid, 0600, settings.redisCertificate());
            }
            byte[] secret = tar.bytes();
            docker.copyArchiveToContainerCmd(id)
                    .withRemotePath(ContainerFactory.SECRET_VOLUME)
                    .withTarInputStream(new ByteArrayInputStream(secret))
                    .exec();
            docker.startContainerCmd(id).exec();
            LOG.infof(
                    "started processor %s of pool %s (container %s of %s)",
                    processorId, type, id.substring(0, 12), p.image());
        } catch (RuntimeException e) {
            remove(id);
            throw e;
        }
    }

    @Override
    public void stop(String type, String processorId) {
        containers(Map.of(Labels.PROCESSOR, processorId))
                .forEach(c -> stops.execute(() -> {
                    LOG.infof(
                            "stopping processor %s of pool %s (container %s)",
                            processorId, type, c.getId().substring(0, 12));
                    try {
                        // SIGTERM to the init, which passes it on: the agent hands back its job, then exits
                        docker.stopContainerCmd(c.getId())
                                .withTimeout(STOP_GRACE_SECONDS)
                                .exec();
                    } catch (RuntimeException e) {
                        LOG.debugf("stop of %s: %s", c.getId(), e.getMessage());
                    }
                    remove(c.getId());
                }));
    }

    /**
     * The running containers of this warmpool. One that has exited is removed (and so its processor
     * is lost to the reconciler); its exit code is logged.
     */
    @Override
    public List<Running> list() {
        List<Running> out = new ArrayList<>();
        // what the containers that are still there hold: their devices, their gangs (whose networks stay)
        Map<String, List<String>> held = new HashMap<>();
        Map<String, Long> uids = new HashMap<>();
        Set<String> gangs = new HashSet<>();
        for (Container c : containers(Map.of())) {
            Map<String, String> labels = c.getLabels();
            boolean stays = "running".equals(c.getState())
                    || ("created".equals(c.getState()) && System.currentTimeMillis() / 1000 - c.getCreated() <= 60);
            if (stays) {
                held.put(labels.get(Labels.PROCESSOR), Devices.split(labels.get(ContainerFactory.DEVICES)));
                jobUid(labels).ifPresent(u -> uids.put(labels.get(Labels.PROCESSOR), u));
                Optional.ofNullable(labels.get(Labels.GANG)).ifPresent(gangs::add);
            }
            if ("running".equals(c.getState())) {
                out.add(new Running(
                        labels.get(Labels.POOL),
                        labels.get(Labels.PROCESSOR),
                        c.getCreated() * 1000,
                        Devices.split(labels.get(ContainerFactory.DEVICES))));
            } else if (!"created".equals(c.getState()) || System.currentTimeMillis() / 1000 - c.getCreated() > 60) {
                String last = lastLines(c);
                LOG.logf(
                        last.isEmpty() ? Logger.Level.INFO : Logger.Level.WARN,
                        "processor %s of pool %s: its container %s is %s (%s); removing it%s",
                        labels.get(Labels.PROCESSOR),
                        labels.get(Labels.POOL),
                        c.getId().substring(0, 12),
                        c.getState(),
                        c.getStatus(),
                        last);
                remove(c.getId());
            }
        }
        devices.held(held);
        uidsHeld(uids);
        try {
            networks.collect(gangs);
        } catch (RuntimeException e) {
            LOG.debugf("gang networks not collected: %s", e.getMessage());
        }
        return out;
    }

    /** The uid a container's jobs run as, from its label (none on a container of an older manager). */
    static Optional<Long> jobUid(Map<String, String> labels) {
        try {
            return Optional.ofNullable(labels.get(ContainerFactory.JOB_UID)).map(Long::valueOf);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * The agent's last output, when its container ended on its own with an error: the container is
     * removed next, and this is the one place left to see why (an image without a shell, a user it
     * cannot run as, a Redis it cannot reach). A kill (137) or a clean exit says nothing more.
     */
    private String lastLines(Container c) {
        String status = String.valueOf(c.getStatus());
        if (!status.startsWith("Exited")
                || status.startsWith("Exited (0)")
                || status.startsWith("Exited (137)")
                || status.startsWith("Exited (143)")) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        try {
            docker.logContainerCmd(c.getId())
                    .withStdOut(true)
                    .withStdErr(true)
                    .withTail(20)
                    .exec(new ResultCallback.Adapter<Frame>() {
                        @Override
                        public void onNext(Frame frame) {
                            out.append(new String(frame.getPayload(), StandardCharsets.UTF_8));
                        }
                    })
                    .awaitCompletion(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            return "";
        }
        return out.length() == 0 ? "" : "; its last output:\n" + out.toString().stripTrailing();
    }

    @Override
    public void poolRemoved(String type) {
        containers(Map.of(Labels.POOL, type)).forEach(c -> remove(c.getId()));
        networks.poolRemoved(type);
    }

    /**
     * Stops and removes every container of the warmpool {@code instance} on this engine (its agents
     * get SIGTERM and {@code grace} to hand back their jobs), with their anonymous volumes, and its
     * gang networks: what {@code stop} does for a docker install, manager or none. Returns how many
     * containers there were.
     */
    public static int removeInstance(DockerClient docker, String instance, Duration grace) {
        List<Container> all = docker.listContainersCmd()
                .withShowAll(true)
                .withLabelFilter(Map.of(ContainerFactory.INSTANCE, instance))
                .exec();
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(all.size(), 16)));
        try {
            List<Future<?>> stopped = all.stream()
                    .<Future<?>>map(c -> pool.submit(() -> {
                        try {
                            docker.stopContainerCmd(c.getId())
                                    .withTimeout((int) grace.toSeconds())
                                    .exec();
                        } catch (RuntimeException e) {
                            LOG.debugf("stop of %s: %s", c.getId(), e.getMessage());
                        }
                        remove(docker, c.getId());
                    }))
                    .toList();
            for (Future<?> f : stopped) {
                f.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
        new GangNetworks(docker, instance).collect(Set.of());
        return all.size();
    }

    private List<Container> containers(Map<String, String> more) {
        Map<String, String> labels = new HashMap<>(more);
        labels.put(ContainerFactory.INSTANCE, settings.instance());
        return docker.listContainersCmd()
                .withShowAll(true)
                .withLabelFilter(labels)
                .exec();
    }

    private void remove(String id) {
        remove(docker, id);
    }

    private static void remove(DockerClient docker, String id) {
        try {
            docker.removeContainerCmd(id)
                    .withForce(true)
                    .withRemoveVolumes(true)
                    .exec();
        } catch (NotFoundException e) {
            // already gone
        } catch (RuntimeException e) {
            LOG.warnf("could not remove container %s: %s", id, e.getMessage());
        }
    }

    /**
     * A container that dies is seen at once (Docker's event stream), not at the next pass: its
     * processor is replaced within a second. The stream is opened again when it ends.
     */
    @Override
    public void onChange(Runnable changed) {
        this.changed = changed;
        watch();
    }

    private void watch() {
        docker.eventsCmd()
                .withEventFilter("die")
                .withLabelFilter(Map.of(ContainerFactory.INSTANCE, settings.instance()))
                .exec(new ResultCallback.Adapter<Event>() {
                    @Override
                    public void onNext(Event event) {
                        changed.run();
                    }

                    @Override
                    public void onError(Throwable t) {
                        again();
                    }

                    @Override
                    public void onComplete() {
                        again();
                    }
                });
    }

    private void again() {
        CompletableFuture.delayedExecutor(5, TimeUnit.SECONDS).execute(() -> {
            try {
                watch();
            } catch (RuntimeException e) {
                again();
            }
        });
    }
}
