package dev.warmpool.runtime.kubernetes;

import static dev.warmpool.testing.Api.job;
import static dev.warmpool.testing.Api.pool;
import static dev.warmpool.testing.Api.putPool;
import static dev.warmpool.testing.Api.submit;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.protocol.KeySchema;
import dev.warmpool.protocol.script.Script;
import dev.warmpool.reconcile.Reconciler;
import dev.warmpool.runtime.Labels;
import dev.warmpool.runtime.ProcessorRuntime;
import dev.warmpool.testing.Api;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The reconciler against fabric8's mock API server in CRUD mode. No pod runs here, so the tests
 * play the agents' part in Redis (register, finish) with the very scripts the agent runs.
 */
@QuarkusTest
@TestProfile(KubernetesReconcileTests.OnKubernetes.class)
@WithKubernetesTestServer(crud = true)
class KubernetesReconcileTests {
    static final String NS = "warmpool-test";
    static final String CONFIG_POOL = "warmpool.pools.k-config.";

    public static class OnKubernetes implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.ofEntries(
                    Map.entry("warmpool.runtime.type", "kubernetes"),
                    Map.entry("warmpool.runtime.kubernetes.namespace", NS),
                    // the tests drive the passes; nothing heartbeats here, so silence is no loss
                    Map.entry("warmpool.reconcile.interval", "1h"),
                    Map.entry("warmpool.heartbeat.timeout", "1h"),
                    Map.entry("warmpool.reconcile.orphan-grace", "0s"),
                    Map.entry("warmpool.reconcile.drain-timeout", "1s"),
                    // a pool declared in config with fields the typed config once lacked (no processor:
                    // min-idle 0), read by name into its spec
                    Map.entry(CONFIG_POOL + "command[0]", "python3"),
                    Map.entry(CONFIG_POOL + "min-idle", "0"),
                    Map.entry(CONFIG_POOL + "max-size", "2"),
                    Map.entry(CONFIG_POOL + "image", "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime"),
                    Map.entry(CONFIG_POOL + "template.resources.limits.\"nvidia.com/gpu\"", "1"),
                    Map.entry(CONFIG_POOL + "template.node-selector.\"kubernetes.io/arch\"", "amd64"),
                    Map.entry(CONFIG_POOL + "shares.alice", "2"),
                    Map.entry(CONFIG_POOL + "max-running.bob", "1"),
                    Map.entry(CONFIG_POOL + "usage-half-life-seconds", "600"));
        }
    }

    @KubernetesTestServer
    KubernetesServer server;

    @Inject
    Reconciler reconciler;

    @Inject
    KubernetesClient client;

    @Inject
    ProcessorRuntime runtime;

    @Inject
    KubernetesCalls calls;

    @ConfigProperty(name = "quarkus.redis.hosts")
    String redisUrl;

    static Map<String, Object> spec(int minIdle, int maxSize, int idleTimeoutSeconds) {
        return Map.of(
                "command",
                List.of("python3", "train.py"),
                "minIdle",
                minIdle,
                "maxSize",
                maxSize,
                "idleTimeoutSeconds",
                idleTimeoutSeconds,
                "template",
                Map.of(
                        "image",
                        "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime",
                        "resources",
                        Map.of("limits", Map.of("nvidia.com/gpu", "1"))));
    }

    List<Pod> pods(String type) {
        return client.pods().inNamespace(NS).withLabel(Labels.POOL, type).list().getItems();
    }

    String processorOf(Pod p) {
        return p.getMetadata().getLabels().get(Labels.PROCESSOR);
    }

    Reconciler.Report pass() {
        await().atMost(Duration.ofSeconds(30)).until(runtime::leads);
        return reconciler.reconcileOnce();
    }

    /** What the agent in a pod does when it starts. */
    void register(String type, String processor) {
        try (Jedis j = new Jedis(URI.create(redisUrl))) {
            j.eval(
                    Script.REGISTER.source(),
                    List.of(KeySchema.pool(type)),
                    List.of(KeySchema.prefix(type), processor, "1", "pod"));
        }
    }

    /** What the agent does when its job ends. */
    void finish(String type, String processor, String jobId) {
        try (Jedis j = new Jedis(URI.create(redisUrl))) {
            j.eval(
                    Script.FINISH.source(),
                    List.of(KeySchema.pool(type)),
                    List.of(
                            KeySchema.prefix(type),
                            processor,
                            jobId,
                            j.hget(KeySchema.job(type, jobId), "attempts"),
                            "SUCCEEDED",
                            "0",
                            "{}",
                            "",
                            "",
                            "600",
                            "0"));
        }
    }

    @Test
    void aPodsNetworkIsOutboundAndNoneOrHostIsRefused() {
        RestAssured.given()
                .contentType("application/json")
                .body(Map.of("command", List.of("true"), "minIdle", 0, "network", "none"))
                .put("/pools/k8s-net")
                .then()
                .statusCode(400)
                .body("field", Matchers.equalTo("network"))
                .body("detail", Matchers.containsString("\"outbound\""));
        putPool("k8s-net", Map.of("command", List.of("true"), "minIdle", 0));
        assertEquals("outbound", pool("k8s-net").getString("spec.network"));
        RestAssured.given().delete("/pools/k8s-net");
    }

    @Test
    void startsAGangAsOnePodPerMemberWithStableNamesThroughAHeadlessService() {
        Map<String, Object> gang = new HashMap<>(spec(1, 2, 300));
        gang.put(
                "gang",
                Map.of("ps", Map.of("count", 1, "command", List.of("python3", "ps.py")), "worker", Map.of("count", 2)));
        Api.putPool("k8s-gang", gang);
        pass();
        List<Pod> pods = pods("k8s-gang");
        assertEquals(3, pods.size(), "minIdle 1 is one gang: three members");
        String gangId = pods.get(0).getMetadata().getLabels().get(Labels.GANG);
        String svc = PodFactory.gangServiceName("k8s-gang");
        for (Pod p : pods) {
            String member = processorOf(p);
            assertEquals(gangId, p.getMetadata().getLabels().get(Labels.GANG), "one gang");
            assertEquals("true", p.getMetadata().getLabels().get(PodFactory.GANG_MEMBER));
            assertEquals(PodFactory.podName("k8s-gang", member), p.getMetadata().getName());
            assertEquals(member, p.getSpec().getHostname());
            assertEquals(svc, p.getSpec().getSubdomain());
            assertTrue(p.getSpec().getContainers().get(0).getEnv().stream()
                    .anyMatch(e -> e.getName().equals("WARMPOOL_MEMBER_ADDR")
                            && e.getValue().equals(member + "." + svc + ":" + PodFactory.GANG_PORT)));
        }
        Service service = client.services().inNamespace(NS).withName(svc).get();
        assertEquals("None", service.getSpec().getClusterIP(), "headless");
        assertTrue(service.getSpec().getPublishNotReadyAddresses(), "members find each other before they are ready");
        assertEquals(
                Map.of(Labels.POOL, "k8s-gang", PodFactory.GANG_MEMBER, "true"),
                service.getSpec().getSelector());
        assertEquals(
                PodFactory.ownerName("k8s-gang"),
                service.getMetadata().getOwnerReferences().get(0).getName());

        // the gang is not idle until all three members have registered; sizing counts gangs
        pods.subList(0, 2).forEach(p -> register("k8s-gang", processorOf(p)));
        assertEquals(0, pass().started(), "a starting gang counts towards minIdle");
        assertEquals("STARTING", Api.pool("k8s-gang").getString("gangs[0].state"));
        register("k8s-gang", processorOf(pods.get(2)));
        assertEquals("IDLE", Api.pool("k8s-gang").getString("gangs[0].state"));
        assertEquals(0, pass().started());
        assertEquals(3, pods("k8s-gang").size());
    }

    /** Config sets what a request sets: the whole pod template, fair share; the manager starts with it. */
    @Test
    void aPoolDeclaredInConfigHasTheFieldsItsKeysName() {
        var spec = pool("k-config").setRootPath("spec");
        assertEquals(List.of("python3"), spec.getList("command"));
        assertEquals("kubernetes", spec.getString("runtime"), "the manager's runtime");
        assertEquals("pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime", spec.getString("template.image"));
        assertEquals("1", spec.getString("template.resources.limits.'nvidia.com/gpu'"));
        assertEquals("amd64", spec.getString("template.nodeSelector.'kubernetes.io/arch'"));
        assertEquals(2.0f, spec.getFloat("shares.alice"));
        assertEquals(1, spec.getInt("maxRunning.bob"));
        assertEquals(600, spec.getInt("usageHalfLifeSeconds"));
        assertEquals(0, spec.getInt("minIdle"));
    }

    @Test
    void createsPodsFromThePoolTemplateOwnedByThePool() {
        putPool("k-a", spec(1, 2, 300));
        pass();
        List<Pod> pods = pods("k-a");
        assertEquals(1, pods.size());
        Pod pod = pods.get(0);
        String processor = processorOf(pod);
        assertEquals("wp-k-a-" + processor, pod.getMetadata().getName());
        assertEquals("warmpool", pod.getMetadata().getLabels().get(Labels.MANAGED_BY));
        assertEquals(
                "1",
                pod.getSpec()
                        .getContainers()
                        .get(0)
                        .getResources()
                        .getLimits()
                        .get("nvidia.com/gpu")
                        .toString());
        assertEquals(
                "wp-pool-k-a", pod.getMetadata().getOwnerReferences().get(0).getName());
        assertNotNull(
                client.configMaps().inNamespace(NS).withName("wp-pool-k-a").get());
        assertEquals(List.of(processor), pool("k-a").getList("processors.id"));
        assertEquals("STARTING", pool("k-a").getString("processors[0].state"));
        pass();
        assertEquals(1, pods("k-a").size(), "a second pass changes nothing");
    }

    @Test
    void aPodsAgentRunsAsRootWithFewCapabilitiesAndItsJobsAsTheTemplatesUser() {
        Map<String, Object> spec = new HashMap<>(spec(1, 1, 300));
        spec.put(
                "template",
                Map.of(
                        "image",
                        "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime",
                        "securityContext",
                        Map.of("runAsUser", 1000, "runAsNonRoot", true, "readOnlyRootFilesystem", true)));
        putPool("k-room", spec);
        pass();
        // as the API server holds it
        Container c = pods("k-room").get(0).getSpec().getContainers().get(0);
        var sc = c.getSecurityContext();
        assertEquals(0L, sc.getRunAsUser(), "the agent is root in its container");
        assertFalse(sc.getRunAsNonRoot());
        assertFalse(sc.getAllowPrivilegeEscalation());
        assertEquals(List.of("ALL"), sc.getCapabilities().getDrop());
        assertEquals(
                List.of("CHOWN", "DAC_OVERRIDE", "FOWNER", "SETUID", "SETGID", "KILL"),
                sc.getCapabilities().getAdd());
        assertTrue(sc.getReadOnlyRootFilesystem(), "the template's read-only root stays");
        Map<String, String> env = c.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
        assertEquals("room", env.get("WARMPOOL_SANDBOX"));
        assertEquals("1000:1000", env.get("WARMPOOL_RUN_AS"), "its jobs run as the template's user");
        assertEquals(PodFactory.ROOM_INIT, env.get("WARMPOOL_ROOM_INIT"));

        Map<String, Object> root = new HashMap<>(spec);
        root.put("template", Map.of("image", "img", "securityContext", Map.of("runAsUser", 0)));
        Response refused =
                RestAssured.given().contentType(ContentType.JSON).body(root).put("/pools/k-root");
        assertEquals(400, refused.statusCode(), refused.asString());
        assertTrue(refused.asString().contains("never run as root"), refused.asString());
        assertTrue(pods("k-root").isEmpty());
    }

    @Test
    void marksTheProcessorOfADeletedPodLostAndRequeuesItsJob() {
        putPool("k-b", spec(1, 2, 300));
        pass();
        String first = processorOf(pods("k-b").get(0));
        register("k-b", first);
        String id = submit(Map.of("type", "k-b"));
        assertEquals(first, job(id).getString("processor"));
        client.pods().inNamespace(NS).withName(PodFactory.podName("k-b", first)).delete();
        // the informer sees the pod go and asks for a pass at once; this one makes sure
        pass();
        await().atMost(Duration.ofSeconds(10)).until(() -> "QUEUED".equals(job(id).getString("state")));
        assertTrue(job(id).getString("error").contains("lost"));
        assertFalse(pool("k-b").getList("processors.id").contains(first));
        List<String> now = pods("k-b").stream().map(this::processorOf).toList();
        assertEquals(2, now.size(), "one pod for the queued job, one for minIdle: " + now);
        assertFalse(now.contains(first));
    }

    @Test
    void scaleDownRetiresIdleProcessorsAndDeletesTheirPodsNeverABusyOne() {
        putPool("k-c", spec(0, 2, 1));
        String a = submit(Map.of("type", "k-c"));
        String b = submit(Map.of("type", "k-c"));
        pass();
        List<String> processors = pods("k-c").stream().map(this::processorOf).toList();
        assertEquals(2, processors.size());
        processors.forEach(p -> register("k-c", p));
        String idle = job(a).getString("processor");
        String busy = job(b).getString("processor");
        finish("k-c", idle, a);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> pool("k-c").getList("processors").stream()
                        .anyMatch(p -> idle.equals(((Map<?, ?>) p).get("id"))
                                && "IDLE".equals(((Map<?, ?>) p).get("state"))
                                && Instant.parse((String) ((Map<?, ?>) p).get("since"))
                                        .isBefore(Instant.now().minusMillis(1200))));
        pass(); // retires the idle one: DRAINING, told to stop
        assertEquals("DRAINING", pool("k-c").getString("processors.find { it.id == '" + idle + "' }.state"));
        // it does not stop (no agent here): past the drain timeout a pass deletes its pod
        await().atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    pass();
                    return pods("k-c").stream().map(this::processorOf).toList().equals(List.of(busy));
                });
        assertEquals("BUSY", pool("k-c").getString("processors.find { it.id == '" + busy + "' }.state"));
    }

    @Test
    void cleansOrphansOnEitherSide() {
        putPool("k-d", spec(0, 2, 300));
        pass();
        client.pods()
                .inNamespace(NS)
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName("wp-k-d-ghost")
                        .addToLabels(Labels.MANAGED_BY, "warmpool")
                        .addToLabels(Labels.POOL, "k-d")
                        .addToLabels(Labels.PROCESSOR, "ghost")
                        .endMetadata()
                        .withNewSpec()
                        .addNewContainer()
                        .withName("processor")
                        .withImage("img")
                        .endContainer()
                        .endSpec()
                        .build())
                .create();
        register("k-d", "phantom"); // Redis knows it; no pod runs it
        pass();
        pass();
        await().atMost(Duration.ofSeconds(10)).until(() -> pods("k-d").isEmpty());
        assertFalse(pool("k-d").getList("processors.id").contains("phantom"));
    }

    @Test
    void retriesTransientApiErrorsAndFailsFastOnOthers() {
        AtomicInteger tries = new AtomicInteger();
        assertEquals("ok", calls.call("flaky", () -> {
            if (tries.incrementAndGet() < 3) {
                throw new KubernetesClientException("busy", 503, null);
            }
            return "ok";
        }));
        assertEquals(3, tries.get());
        AtomicInteger forbidden = new AtomicInteger();
        assertThrows(
                KubernetesClientException.class,
                () -> calls.call("forbidden", () -> {
                    forbidden.incrementAndGet();
                    throw new KubernetesClientException("no", 403, null);
                }));
        assertEquals(1, forbidden.get());
    }

    @Test
    void aReconcilePassRidesOutApiServerErrors() {
        putPool("k-e", spec(1, 1, 300));
        server.expect()
                .get()
                .withPath("/api/v1/namespaces/" + NS + "/pods?labelSelector=app.kubernetes.io%2Fmanaged-by%3Dwarmpool")
                .andReturn(503, "{\"kind\":\"Status\",\"code\":503,\"message\":\"etcd is busy\"}")
                .times(2);
        Reconciler.Report report = pass();
        assertTrue(report.ran());
        assertEquals(1, pods("k-e").size(), "the pass went on after two failed listings");
    }

    @Test
    void holdsTheReconcilerLeaseWhileItLeads() {
        await().atMost(Duration.ofSeconds(30)).until(runtime::leads);
        var lease =
                client.leases().inNamespace(NS).withName("warmpool-reconciler").get();
        assertNotNull(lease.getSpec().getHolderIdentity());
    }
}
