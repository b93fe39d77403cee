package dev.warmpool.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.warmpool.pool.PodTemplate;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class DevicesTests {
    static PodTemplate gpus(String n) {
        return new PodTemplate(
                "img",
                null,
                null,
                new ResourceRequirementsBuilder()
                        .addToLimits(Devices.GPU, new Quantity(n))
                        .build(),
                null,
                null,
                null,
                null,
                null,
                null,
                null);
    }

    @Test
    void eachProcessorGetsDevicesOfItsOwnAndNeverMoreThanAreFree() {
        Devices d = new Devices(List.of("0", "1", "2"));
        assertEquals(3, d.startable(1, 5));
        assertEquals(1, d.startable(2, 5));
        assertEquals(List.of("0", "1"), d.assign("p1", 2));
        assertEquals(List.of("0", "1"), d.assign("p1", 2), "asking again gives the same devices");
        assertEquals(List.of("2"), d.assign("p2", 1));
        assertEquals(0, d.free());
        assertEquals(0, d.startable(1, 1));
        var e = assertThrows(IllegalStateException.class, () -> d.assign("p3", 1));
        assertTrue(
                e.getMessage().contains("needs 1 device(s)") && e.getMessage().contains("0 of the machine's 3"));
        d.release("p1");
        assertEquals(2, d.free());
        assertEquals(List.of("0"), d.assign("p3", 1));
        assertEquals(List.of(), d.assign("p4", 0), "a processor that asks for none holds none");
        assertEquals(7, d.startable(0, 7), "processors that ask for none are not counted");
    }

    @Test
    void whatTheRuntimeListsReplacesWhatWasHeldSoARestartKnowsWhoHoldsWhat() {
        Devices d = new Devices(List.of("0", "1"));
        d.assign("gone", 1);
        // a fresh manager: what the running processors say they hold (labels, command lines)
        d.held(Map.of("adopted", List.of("1"), "none", List.of()));
        assertEquals(Map.of("adopted", List.of("1")), d.holders());
        assertEquals(List.of("0"), d.assign("new", 1), "the adopted processor's device is not given again");
        d.held(Map.of());
        assertEquals(2, d.free(), "processors gone: their devices are free");
    }

    @Test
    void configuredDevicesWinAndNoneMeansNone() {
        assertEquals(
                List.of("a", "b"),
                Devices.of(Optional.of(List.of("a", " b", "a"))).all());
        assertEquals(List.of(), Devices.of(Optional.of(List.of("none"))).all());
    }

    @Test
    void nvidiaSmiListsGpusByIndex() {
        String out = "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5f1c)\nGPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-77aa)\n";
        assertEquals(List.of("0", "1"), Devices.parse(out));
        assertEquals(List.of(), Devices.parse("NVIDIA-SMI has failed because it couldn't communicate with the driver"));
    }

    @Test
    void aTemplateAsksForAWholeNumberOfDevices() {
        assertEquals(0, Devices.perProcessor((PodTemplate) null));
        assertEquals(2, Devices.perProcessor(gpus("2")));
        assertTrue(Devices.problem(gpus("2")).isEmpty());
        assertTrue(Devices.problem(gpus("0.5")).orElseThrow().contains("whole number"));
        assertTrue(Devices.problem(gpus("-1")).isPresent());
    }
}
