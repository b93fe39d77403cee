package dev.warmpool.runtime.kubernetes;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.pool.Ids;
import dev.warmpool.pool.PodTemplate;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.runtime.Labels;
import dev.warmpool.runtime.ProcessorRuntime;
import dev.warmpool.runtime.ResourceLimits;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Processors as pods, created from the pool's template (see {@link PodFactory}). Actual state
 * is the pods that carry warmpool's label; an informer calls the reconciler as soon as one goes
 * or fails, and the periodic pass repairs anything the watch missed. Among several managers, a
 * Lease elects the one that reconciles.
 */
public class KubernetesRuntime implements ProcessorRuntime {
    private static final Logger LOG = Logger.getLogger(KubernetesRuntime.class);

    private final KubernetesClient client;
    private final KubernetesCalls calls;
    private final String namespace;
    private final PodFactory.Settings settings;
    private final ObjectMapper json;
    private volatile boolean leader;
    private SharedIndexInformer<Pod> informer;

    /** Gang pools whose headless Service this manager has made (or found) already. */
    private final Set<String> gangServices = ConcurrentHashMap.newKeySet();

    public KubernetesRuntime(
            KubernetesClient client,
            KubernetesCalls calls,
            String namespace,
            PodFactory.Settings settings,
            ObjectMapper json) {
        this.client = client;
        this.calls = calls;
        this.namespace = namespace;
        this.settings = settings;
        this.json = json;
    }

    /**
     * The Kubernetes runtime from warmpool's settings ({@code warmpool.runtime.kubernetes.*}) in the client's
     * namespace unless one is set, already taking part in its lease's leader election. {@code redis}: the
     * manager's Redis, which pods get unless {@code redis-url} names another.
     */
    public static KubernetesRuntime fromConfig(
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

    @Override
    public void start(String type, String processorId, PoolSpec spec) {
        ConfigMap owner = owner(type, spec);
        if (spec.isGang() && !gangServices.contains(type)) {
            Service svc = PodFactory.gangService(type, owner);
            calls.call("create service " + svc.getMetadata().getName(), () -> {
                try {
                    return client.services()
                            .inNamespace(namespace)
                            .resource(svc)
                            .create();
                } catch (KubernetesClientException e) {
                    if (e.getCode() == 409) {
                        return svc; // one Service per pool: another manager, or an earlier run, made it
                    }
                    throw e;
                }
            });
            gangServices.add(type); // the other members of this and later gangs need no call
        }
        Pod pod = PodFactory.pod(type, processorId, spec, owner, settings);
        calls.call("create pod " + pod.getMetadata().getName(), () -> {
            try {
                return client.pods().inNamespace(namespace).resource(pod).create();
            } catch (KubernetesClientException e) {
                if (e.getCode() == 409) {
                    return pod; // the name is the processor's: it exists already, from an earlier try
                }
                throw e;
            }
        });
    }

    /** The pool's owner ConfigMap, created on first use; it carries the uid the pods point to. */
    private ConfigMap owner(String type, PoolSpec spec) {
        return calls.call("get or create configmap " + PodFactory.ownerName(type), () -> {
            ConfigMap existing = client.configMaps()
                    .inNamespace(namespace)
                    .withName(PodFactory.ownerName(type))
                    .get();
            if (existing != null) {
                return existing;
            }
            try {
                return client.configMaps()
                        .inNamespace(namespace)
                        .resource(PodFactory.owner(type, json.writeValueAsString(spec)))
                        .create();
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** A pod honours what PodFactory can put in its spec. */
    @Override
    public Optional<ResourceLimits.Problem> templateProblem(PodTemplate template, Set<String> beside) {
        return template == null
                ? Optional.empty()
                : PodFactory.unsupported(template)
                        .map(p -> new ResourceLimits.Problem(
                                "template", "This pool runs processors as pods: " + p + "."));
    }

    @Override
    public void stop(String type, String processorId) {
        calls.call(
                "delete pod " + PodFactory.podName(type, processorId),
                () -> client.pods()
                        .inNamespace(namespace)
                        .withName(PodFactory.podName(type, processorId))
                        .withGracePeriod(30)
                        .delete());
    }

    @Override
    public List<Running> list() {
        List<Pod> pods = calls.call(
                "list pods",
                () -> client.pods()
                        .inNamespace(namespace)
                        .withLabel(Labels.MANAGED_BY, Labels.MANAGER)
                        .list()
                        .getItems());
        return pods.stream()
                .filter(KubernetesRuntime::live)
                .map(p -> {
                    Map<String, String> labels = p.getMetadata().getLabels();
                    return new Running(labels.get(Labels.POOL), labels.get(Labels.PROCESSOR), created(p));
                })
                .toList();
    }

    /** A pod that ended (Succeeded, Failed) or is being deleted no longer holds a processor. */
    static boolean live(Pod p) {
        String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
        return p.getMetadata().getDeletionTimestamp() == null
                && !"Succeeded".equals(phase)
                && !"Failed".equals(phase)
                && p.getMetadata().getLabels() != null
                && p.getMetadata().getLabels().containsKey(Labels.PROCESSOR);
    }

    private static long created(Pod p) {
        String ts = p.getMetadata().getCreationTimestamp();
        return ts == null ? System.currentTimeMillis() : Instant.parse(ts).toEpochMilli();
    }

    @Override
    public void poolRemoved(String type) {
        gangServices.remove(type);
        // the pods are owned by the ConfigMap: Kubernetes collects them with it
        calls.call(
                "delete configmap " + PodFactory.ownerName(type),
                () -> client.configMaps()
                        .inNamespace(namespace)
                        .withName(PodFactory.ownerName(type))
                        .delete());
    }

    @Override
    public void onChange(Runnable changed) {
        informer = client.pods()
                .inNamespace(namespace)
                .withLabel(Labels.MANAGED_BY, Labels.MANAGER)
                .inform(
                        new ResourceEventHandler<>() {
                            @Override
                            public void onAdd(Pod pod) {}

                            @Override
                            public void onUpdate(Pod before, Pod after) {
                                if (live(before) && !live(after)) {
                                    changed.run();
                                }
                            }

                            @Override
                            public void onDelete(Pod pod, boolean finalStateUnknown) {
                                changed.run();
                            }
                        },
                        0);
    }

    /** Joins the election on the Lease {@code leaseName}; only the holder reconciles. */
    public void elect(String leaseName, String identity) {
        client.leaderElector()
                .withConfig(new LeaderElectionConfigBuilder()
                        .withName("warmpool")
                        .withLock(new LeaseLock(namespace, leaseName, identity))
                        .withLeaseDuration(Duration.ofSeconds(15))
                        .withRenewDeadline(Duration.ofSeconds(10))
                        .withRetryPeriod(Duration.ofSeconds(2))
                        .withLeaderCallbacks(new LeaderCallbacks(
                                () -> {
                                    leader = true;
                                    LOG.infof("%s leads the reconciler", identity);
                                },
                                () -> {
                                    leader = false;
                                    LOG.infof("%s no longer leads the reconciler", identity);
                                },
                                newLeader -> LOG.debugf("reconciler leader: %s", newLeader)))
                        .withReleaseOnCancel(true)
                        .build())
                .build()
                .start();
    }

    @Override
    public boolean leads() {
        return leader;
    }

    public void close() {
        if (informer != null) {
            informer.close();
        }
    }
}
