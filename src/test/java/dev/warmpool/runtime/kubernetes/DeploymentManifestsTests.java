package dev.warmpool.runtime.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.warmpool.events.EventTypes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every file in knative/ parsed, and the fields an operator relies on asserted. */
class DeploymentManifestsTests {
    static final Path DIR = Path.of("knative");
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    static List<JsonNode> docs(String file) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        try (JsonParser p = YAML.getFactory().createParser(DIR.resolve(file).toFile())) {
            YAML.readValues(p, JsonNode.class).forEachRemaining(n -> {
                if (n != null && !n.isNull()) {
                    out.add(n);
                }
            });
        }
        return out;
    }

    static JsonNode only(String file, String kind) throws IOException {
        List<JsonNode> found = docs(file).stream()
                .filter(d -> kind.equals(d.path("kind").asText()))
                .toList();
        assertEquals(1, found.size(), kind + " in " + file);
        return found.get(0);
    }

    static void assertRestricted(JsonNode securityContext, String where) {
        assertTrue(securityContext.path("runAsNonRoot").asBoolean(), where + ": runAsNonRoot");
        assertFalse(
                securityContext.path("allowPrivilegeEscalation").asBoolean(true), where + ": allowPrivilegeEscalation");
        assertEquals("ALL", securityContext.at("/capabilities/drop/0").asText(), where + ": drop ALL");
        assertEquals(
                "RuntimeDefault", securityContext.at("/seccompProfile/type").asText(), where + ": seccomp");
    }

    @Test
    void theKustomizationAppliesEveryManifest() throws IOException {
        JsonNode k = docs("kustomization.yaml").get(0);
        Set<String> listed = new HashSet<>();
        k.path("resources").forEach(r -> listed.add(r.asText()));
        Set<String> files = new HashSet<>();
        try (Stream<Path> s = Files.list(DIR)) {
            s.map(f -> f.getFileName().toString())
                    .filter(f -> f.endsWith(".yaml") && !f.equals("kustomization.yaml"))
                    .forEach(files::add);
        }
        assertEquals(files, listed);
        assertEquals("warmpool", k.path("namespace").asText());
        for (String f : files) {
            assertFalse(docs(f).isEmpty(), f + " parses to at least one object");
        }
    }

    @Test
    void theManagerScalesToZeroAndMeetsTheRestrictedProfile() throws IOException {
        JsonNode svc = only("service.yaml", "Service");
        assertEquals("serving.knative.dev/v1", svc.path("apiVersion").asText());
        JsonNode annotations = svc.at("/spec/template/metadata/annotations");
        assertEquals("0", annotations.path("autoscaling.knative.dev/min-scale").asText());
        assertTrue(Integer.parseInt(
                        annotations.path("autoscaling.knative.dev/max-scale").asText())
                >= 1);
        JsonNode spec = svc.at("/spec/template/spec");
        assertTrue(spec.path("containerConcurrency").asInt() > 0);
        assertEquals("warmpool", spec.path("serviceAccountName").asText());
        JsonNode c = spec.at("/containers/0");
        assertEquals("/q/health/ready", c.at("/readinessProbe/httpGet/path").asText());
        assertEquals("/q/health/live", c.at("/livenessProbe/httpGet/path").asText());
        assertRestricted(c.path("securityContext"), "manager");
        List<String> env = new ArrayList<>();
        c.path("env")
                .forEach(e ->
                        env.add(e.path("name").asText() + "=" + e.path("value").asText()));
        assertTrue(env.contains("WARMPOOL_RUNTIME_TYPE=kubernetes"));
        assertEquals(
                "cluster-local",
                svc.at("/metadata/labels")
                        .path("networking.knative.dev/visibility")
                        .asText(),
                "reachable inside the cluster only, unless the operator exposes it");
    }

    @Test
    void theManagerTakesItsTokensAndTheRedisPasswordFromSecretsAndNamesNoPassword() throws IOException {
        JsonNode spec = only("service.yaml", "Service").at("/spec/template/spec");
        JsonNode c = spec.at("/containers/0");
        Map<String, JsonNode> env = new HashMap<>();
        c.path("env").forEach(e -> env.put(e.path("name").asText(), e));
        assertEquals(
                "warmpool-redis",
                env.get("QUARKUS_REDIS_HOSTS")
                        .at("/valueFrom/secretKeyRef/name")
                        .asText());
        assertTrue(env.get("QUARKUS_REDIS_HOSTS").path("value").isMissingNode(), "no Redis URL in the plain env");
        assertEquals(
                "warmpool-redis/url",
                env.get("WARMPOOL_RUNTIME_KUBERNETES_REDIS_SECRET")
                        .path("value")
                        .asText());
        String tokens = env.get("WARMPOOL_AUTH_TOKENS_FILE").path("value").asText();
        String mount = c.at("/volumeMounts/0/mountPath").asText();
        assertTrue(tokens.startsWith(mount + "/"), tokens + " lies in the mounted Secret " + mount);
        assertEquals("warmpool-tokens", spec.at("/volumes/0/secret/secretName").asText());
        JsonNode redis = only("redis.yaml", "StatefulSet").at("/spec/template/spec/containers/0");
        List<String> args = new ArrayList<>();
        redis.path("args").forEach(a -> args.add(a.asText()));
        assertEquals("$(REDIS_PASSWORD)", args.get(args.indexOf("--requirepass") + 1));
        assertEquals(
                "warmpool-redis", redis.at("/env/0/valueFrom/secretKeyRef/name").asText());
    }

    @Test
    void rbacIsLeastPrivilegeInOneNamespaceWithoutWildcards() throws IOException {
        assertTrue(docs("rbac.yaml").stream()
                .noneMatch(d -> d.path("kind").asText().startsWith("Cluster")));
        JsonNode role = only("rbac.yaml", "Role");
        Set<String> grants = new HashSet<>();
        for (JsonNode rule : role.path("rules")) {
            for (String field : List.of("apiGroups", "resources", "verbs")) {
                rule.path(field).forEach(v -> assertFalse(v.asText().contains("*"), "wildcard in " + field));
            }
            rule.path("resources")
                    .forEach(r -> rule.path("verbs").forEach(v -> grants.add(r.asText() + ":" + v.asText())));
        }
        for (String need : List.of(
                "pods:create",
                "pods:delete",
                "pods:list",
                "pods:watch",
                "pods:get",
                "configmaps:create",
                "configmaps:get",
                "configmaps:delete",
                "services:create",
                "leases:get",
                "leases:create",
                "leases:update")) {
            assertTrue(grants.contains(need), "the Role grants " + need);
        }
        assertFalse(grants.contains("pods:update") || grants.contains("services:delete"), "nothing beyond need");
        assertTrue(
                grants.stream()
                        .noneMatch(g -> g.startsWith("secrets:")
                                || g.startsWith("pods/exec:")
                                || g.startsWith("pods/attach:")
                                || g.startsWith("serviceaccounts/token:")),
                "no secrets, no exec: " + grants);
        JsonNode binding = only("rbac.yaml", "RoleBinding");
        assertEquals("warmpool", binding.at("/roleRef/name").asText());
        assertEquals("warmpool", binding.at("/subjects/0/name").asText());
        assertEquals(
                "warmpool",
                only("rbac.yaml", "ServiceAccount").at("/metadata/name").asText());
    }

    @Test
    void redisKeepsAnAppendOnlyFileOnAPersistentVolume() throws IOException {
        JsonNode sts = only("redis.yaml", "StatefulSet");
        List<String> args = new ArrayList<>();
        sts.at("/spec/template/spec/containers/0/args").forEach(a -> args.add(a.asText()));
        assertEquals("yes", args.get(args.indexOf("--appendonly") + 1));
        assertEquals(
                "data", sts.at("/spec/volumeClaimTemplates/0/metadata/name").asText());
        assertEquals(
                "/data",
                sts.at("/spec/template/spec/containers/0/volumeMounts/0/mountPath")
                        .asText());
        assertEquals(
                "warmpool-redis",
                only("redis.yaml", "Service").at("/metadata/name").asText());
    }

    @Test
    void aPingSourceWakesTheManagerEveryMinute() throws IOException {
        JsonNode ping = only("pingsource.yaml", "PingSource");
        assertEquals("* * * * *", ping.at("/spec/schedule").asText());
        assertEquals("warmpool", ping.at("/spec/sink/ref/name").asText());
        assertEquals("Service", ping.at("/spec/sink/ref/kind").asText());
    }

    @Test
    void triggersRouteEverySubmitEventTheManagerTakesWithADeadLetterSink() throws IOException {
        List<JsonNode> triggers = docs("trigger.yaml").stream()
                .filter(d -> "Trigger".equals(d.path("kind").asText()))
                .toList();
        List<String> routed = triggers.stream()
                .map(t -> t.at("/spec/filter/attributes/type").asText())
                .sorted()
                .toList();
        assertEquals(
                EventTypes.ACCEPTED.stream()
                        .filter(t -> !t.equals(EventTypes.PING))
                        .sorted()
                        .toList(),
                routed);
        for (JsonNode t : triggers) {
            assertEquals("warmpool", t.at("/spec/subscriber/ref/name").asText());
            String dls = t.at("/spec/delivery/deadLetterSink/ref/name").asText();
            assertEquals("warmpool-dead-letters", dls);
            assertEquals(
                    dls,
                    only("dead-letters.yaml", "Service").at("/metadata/name").asText());
            assertTrue(t.at("/spec/delivery/retry").asInt() > 0);
        }
    }

    @Test
    void theAgentImageHoldsWhatTheInitContainerCopiesAndThePodStarts() throws IOException {
        // the image is the agent bundle (its build context) under AGENT_IMAGE_DIR; the bundle holds the launcher
        String dockerfile = Files.readString(Path.of("src", "main", "docker", "Dockerfile.agent"));
        assertTrue(dockerfile.contains("COPY . " + PodFactory.AGENT_IMAGE_DIR + "\n"), dockerfile);
        String bundle = Files.readString(Path.of("src", "main", "docker", "agent-bundle.sh"));
        assertTrue(bundle.contains("\"$out/bin/warmpool-agent\""), "the bundle makes bin/warmpool-agent");
        assertTrue(bundle.contains("\"$out/lib/warmpool-agent.jar\""), "and holds the agent jar");
        assertTrue(PodFactory.AGENT_LAUNCHER.endsWith("/bin/warmpool-agent"));
    }
}
