package dev.warmpool.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.agent.room.RoomLimits;
import dev.warmpool.pool.PodTemplate;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A template's limits as the local and docker runtimes read them, and the names each runtime refuses. */
@Tag("unit")
class ResourceLimitsTests {
    static PodTemplate limits(Map<String, String> limits) {
        ResourceRequirementsBuilder r = new ResourceRequirementsBuilder();
        limits.forEach((k, v) -> r.addToLimits(k, new Quantity(v)));
        return new PodTemplate("local", null, null, r.build(), null, null, null, null, null, null, null);
    }

    @Test
    void aLocalRoomsBoundsComeFromTheTemplateAndThePidsDefault() {
        assertEquals(
                new RoomLimits.Bounds(500, 64L << 20, 4096),
                ResourceLimits.bounds(limits(Map.of("cpu", "500m", "memory", "64Mi")), 4096));
        assertEquals(
                new RoomLimits.Bounds(2000, 0, 100),
                ResourceLimits.bounds(limits(Map.of("cpu", "2", "pids", "100")), 4096));
        assertEquals(new RoomLimits.Bounds(0, 0, 4096), ResourceLimits.bounds(null, 4096));
        assertEquals(Optional.empty(), ResourceLimits.pidsBound(null, 0), "0: no bound");
    }

    @Test
    void theBoundsReachTheAgentAsItsVariables() {
        assertEquals(
                Map.of(RoomLimits.CPU_ENV, "500", RoomLimits.MEMORY_ENV, "1024", RoomLimits.PIDS_ENV, "64"),
                new RoomLimits.Bounds(500, 1024, 64).environment());
        assertEquals(Map.of(), RoomLimits.Bounds.NONE.environment());
    }

    @Test
    void namesARuntimeDoesNotKnowAndValuesItCannotHoldAreNamedWithWhatToDo() {
        var unknown = ResourceLimits.problem(limits(Map.of("ephemeral-storage", "1Gi")), "local")
                .orElseThrow();
        assertEquals("template.resources.limits.ephemeral-storage", unknown.field());
        assertTrue(unknown.detail().contains("cpu, memory, pids, nvidia.com/gpu"), unknown.detail());
        assertEquals(
                "template.resources.limits.pids",
                ResourceLimits.problem(limits(Map.of("pids", "8")), "docker")
                        .orElseThrow()
                        .field());
        assertTrue(
                ResourceLimits.problem(limits(Map.of("pids", "100.5")), "local").isPresent());
        assertTrue(ResourceLimits.problem(limits(Map.of("cpu", "1m")), "local").isPresent());
        assertTrue(
                ResourceLimits.problem(limits(Map.of("memory", "1Ki")), "local").isPresent());
        assertEquals(
                Optional.empty(),
                ResourceLimits.problem(
                        limits(Map.of("cpu", "10m", "memory", "4Mi", "pids", "16", "nvidia.com/gpu", "1")), "local"));
    }

    @Test
    void kubernetesTakesItsOwnNamesButNotPidsWhichTheKubeletBounds() {
        assertEquals(
                Optional.empty(),
                ResourceLimits.problem(limits(Map.of("ephemeral-storage", "1Gi", "cpu", "1m")), "kubernetes"));
        var pids = ResourceLimits.problem(limits(Map.of("pids", "100")), "kubernetes")
                .orElseThrow();
        assertEquals("template.resources.limits.pids", pids.field());
        assertTrue(pids.detail().contains("podPidsLimit"), pids.detail());
        var typo = ResourceLimits.problem(limits(Map.of("memroy", "1Gi")), "kubernetes")
                .orElseThrow();
        assertEquals("template.resources.limits.memroy", typo.field());
        assertTrue(typo.detail().contains("cpu, memory, ephemeral-storage"), typo.detail());
        assertEquals(
                Optional.empty(),
                ResourceLimits.problem(
                        limits(Map.of("hugepages-2Mi", "64Mi", "nvidia.com/gpu", "1", "memory", "1Gi")), "kubernetes"));
    }

    @Test
    void aMisspeltResourcesSectionIsRefusedOnEveryRuntime() {
        for (String runtime : List.of("local", "docker", "kubernetes")) {
            PodTemplate t = limits(Map.of());
            t.resources().setAdditionalProperty("limts", Map.of("memory", "1Gi"));
            var p = ResourceLimits.problem(t, runtime).orElseThrow();
            assertEquals("template.resources.limts", p.field(), runtime);
            assertTrue(p.detail().contains("limits, requests"), p.detail());
        }
        for (String runtime : List.of("local", "docker")) {
            assertEquals(
                    "template.resources.limits.memroy",
                    ResourceLimits.problem(limits(Map.of("memroy", "1Gi")), runtime)
                            .orElseThrow()
                            .field(),
                    runtime);
        }
    }
}
