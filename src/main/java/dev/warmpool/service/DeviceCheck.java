package dev.warmpool.service;

import dev.warmpool.pool.PoolSpec;
import dev.warmpool.protocol.EnvNames;
import dev.warmpool.runtime.Devices;
import java.util.Optional;

/** A pool's ask for devices ({@code nvidia.com/gpu}) against what this machine has: refused when it can never be met. */
final class DeviceCheck {
    static final String FIELD = "template.resources.limits." + Devices.GPU;
    static final String VISIBLE = "CUDA_VISIBLE_DEVICES";

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
        // the runtime names each processor's own devices in it: a pool or a job that set it would share them
        String field = spec.env() != null && spec.env().containsKey(VISIBLE)
                ? "env." + VISIBLE
                : spec.template().env() != null && spec.template().env().containsKey(VISIBLE)
                        ? "template.env." + VISIBLE
                        : EnvNames.allowed(VISIBLE, spec.jobEnv()) ? "jobEnv" : null;
        if (field != null) {
            throw Refusal.invalid(
                    field,
                    "A pool that asks for " + Devices.GPU + " may not let its pool or its jobs set " + VISIBLE
                            + ": warmpool sets it to each processor's own devices. Leave it out of '" + field
                            + "'.");
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
