package dev.warmpool.service;

import dev.warmpool.pool.PoolSpec;
import dev.warmpool.runtime.Devices;
import java.util.Optional;

/** A pool's ask for devices ({@code nvidia.com/gpu}) against what this machine has: refused when it can never be met. */
final class DeviceCheck {
    static final String FIELD = "template.resources.limits." + Devices.GPU;

    private DeviceCheck() {}

    /** {@code machine}: the devices the runtime hands out; empty where something else counts them (Kubernetes). */
    static void check(PoolSpec spec, Optional<Devices> machine) {
        Devices.problem(spec.template()).ifPresent(problem -> {
            throw Refusal.invalid(FIELD, "'" + FIELD + "' " + problem + ".");
        });
        int each = Devices.perProcessor(spec.template());
        if (each == 0 || machine.isEmpty()) {
            return;
        }
        int members = spec.isGang() ? spec.members().size() : 1;
        int has = machine.get().all().size();
        if (each * members > has) {
            throw Refusal.invalid(
                            FIELD,
                            (spec.isGang()
                                            ? "Each gang of " + members + " members asks for " + each * members
                                            : "Each processor asks for " + each)
                                    + " " + Devices.GPU + ", and this machine has " + has
                                    + (has == 0
                                            ? " (no GPU: nvidia-smi lists none, and warmpool.runtime.devices is not set)"
                                            : " (" + Devices.join(machine.get().all()) + ")")
                                    + "; ask for at most " + has / members + " per processor.")
                    .with("available", has);
        }
    }
}
