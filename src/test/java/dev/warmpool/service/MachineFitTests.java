package dev.warmpool.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.pool.PodTemplate;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.testing.Specs;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Sizes beyond the machine are warned of on the local and docker runtimes, and only those. */
@Tag("unit")
class MachineFitTests {
    static final MachineFit.Machine TWO_CORES = new MachineFit.Machine(2, 8L << 30);

    static PoolSpec spec(int minIdle, Map<String, String> limits) {
        ResourceRequirementsBuilder r = new ResourceRequirementsBuilder();
        limits.forEach((k, v) -> r.addToLimits(k, new Quantity(v)));
        PodTemplate t = limits.isEmpty()
                ? null
                : new PodTemplate("local", null, null, r.build(), null, null, null, null, null, null, null);
        return Specs.process("true")
                .minIdle(minIdle)
                .maxSize(Math.max(1, minIdle))
                .template(t)
                .build();
    }

    @Test
    void fiveHundredWarmProcessorsOnTwoCoresAreWarnedOf() {
        List<String> w = MachineFit.warnings(spec(500, Map.of()), "local", TWO_CORES);
        assertEquals(2, w.size(), w.toString());
        assertTrue(w.get(0).startsWith("minIdle 500 keeps 500 processors warm on a machine of 2 cores"), w.get(0));
        assertTrue(
                w.get(1)
                        .startsWith("minIdle 500: 500 warm processors of about 64 MiB each (an idle processor's own)"
                                + " come to 31 GiB, more than this machine's 8192 MiB."),
                w.get(1));
        assertEquals(
                List.of(), MachineFit.warnings(spec(500, Map.of()), "local", new MachineFit.Machine(32, 64L << 30)));
        assertEquals(List.of(), MachineFit.warnings(spec(500, Map.of()), "kubernetes", TWO_CORES));
    }

    @Test
    void aFewPerCoreWithinTheMachinesMemoryAreNot() {
        assertEquals(
                List.of(), MachineFit.warnings(spec(8, Map.of("cpu", "1", "memory", "512Mi")), "local", TWO_CORES));
        assertEquals(List.of(), MachineFit.warnings(spec(0, Map.of()), "docker", TWO_CORES));
    }

    @Test
    void limitsBeyondTheMachineAndWarmMemoryBeyondItAreWarnedOf() {
        List<String> w = MachineFit.warnings(spec(4, Map.of("cpu", "3", "memory", "4Gi")), "docker", TWO_CORES);
        assertEquals(2, w.size(), w.toString());
        assertTrue(w.get(0).contains("limits.cpu asks for 3 cores per processor; this machine has 2"), w.get(0));
        assertTrue(
                w.get(1)
                        .contains("minIdle 4: 4 warm processors of about 4096 MiB each (their memory limit) come to"
                                + " 16 GiB, more than this machine's 8192 MiB."),
                w.get(1));
        List<String> big = MachineFit.warnings(spec(1, Map.of("memory", "16Gi")), "local", TWO_CORES);
        assertTrue(
                big.get(0).contains("limits.memory asks for 16 GiB per processor; this machine has 8192 MiB"),
                big.toString());
    }
}
