package dev.warmpool.runtime;

import dev.warmpool.agent.room.RoomLimits;
import dev.warmpool.pool.PodTemplate;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A pool's {@code template.resources.limits} as the local and docker runtimes read them: {@code
 * cpu} ("2", "500m"), {@code memory} ("512Mi"), {@code pids} (a whole number of processes, threads
 * included; {@code warmpool.runtime.pids-limit} when unset) and {@value Devices#GPU}. Kubernetes
 * reads the template itself; there the kubelet's {@code podPidsLimit} bounds a pod's processes.
 */
public final class ResourceLimits {
    public static final String CPU = "cpu";
    public static final String MEMORY = "memory";
    public static final String PIDS = "pids";
    /** The names the local and docker runtimes know. */
    public static final List<String> NAMES = List.of(CPU, MEMORY, PIDS, Devices.GPU);
    /** Fewer processes than a room needs for itself (bwrap, its init, the launcher, the job's namespace) plus a shell. */
    public static final long MIN_PIDS = 16;

    private ResourceLimits() {}

    /** A limit as a number (cpu in cores, memory in bytes, pids), when the template sets it. */
    public static Optional<BigDecimal> of(PodTemplate t, String name) {
        if (t == null
                || t.resources() == null
                || t.resources().getLimits() == null
                || t.resources().getLimits().get(name) == null) {
            return Optional.empty();
        }
        return Optional.of(Quantity.getAmountInBytes(t.resources().getLimits().get(name)));
    }

    /** The processes one processor may have: the template's {@code pids}, else {@code pidsDefault} (0: no bound). */
    public static long pids(PodTemplate t, long pidsDefault) {
        return of(t, PIDS).map(BigDecimal::longValue).orElse(pidsDefault);
    }

    /** The processes one processor may have, empty for no bound (Docker's {@code PidsLimit} unset). */
    public static Optional<Long> pidsBound(PodTemplate t, long pidsDefault) {
        long n = pids(t, pidsDefault);
        return n > 0 ? Optional.of(n) : Optional.empty();
    }

    /** The bounds of a local processor's room. */
    public static RoomLimits.Bounds bounds(PodTemplate t, long pidsDefault) {
        return new RoomLimits.Bounds(
                of(t, CPU)
                        .map(c -> c.multiply(BigDecimal.valueOf(1000)).longValue())
                        .orElse(0L),
                of(t, MEMORY).map(BigDecimal::longValue).orElse(0L),
                pids(t, pidsDefault));
    }

    /** A limit that is wrong for {@code runtime}: the field it names and what to do instead. */
    public record Problem(String field, String detail) {}

    /**
     * The names Kubernetes takes for a container's limits: its own resources and, with a domain
     * (nvidia.com/gpu, example.com/foo), extended ones; anything else the API server refuses only
     * when the pod is made, long after the PUT.
     */
    static boolean kubernetesName(String name) {
        return List.of("cpu", "memory", "ephemeral-storage").contains(name)
                || name.startsWith("hugepages-")
                || name.contains("/");
    }

    /** What is wrong with the template's limits on {@code runtime} (local, docker, kubernetes), if anything. */
    public static Optional<Problem> problem(PodTemplate t, String runtime) {
        if (t == null || t.resources() == null) {
            return Optional.empty();
        }
        // the Kubernetes model keeps names it does not know (a misspelt "limts") aside instead of failing
        Optional<String> unknown = t.resources().getAdditionalProperties().keySet().stream()
                .sorted()
                .findFirst();
        if (unknown.isPresent()) {
            String field = "template.resources." + unknown.get();
            return Optional.of(
                    new Problem(field, "Unknown field '" + field + "'; known fields there are limits, requests."));
        }
        Map<String, Quantity> limits = t.resources().getLimits();
        if (limits == null) {
            return Optional.empty();
        }
        boolean kubernetes = "kubernetes".equals(runtime);
        for (String name : limits.keySet()) {
            String field = "template.resources.limits." + name;
            if (kubernetes && PIDS.equals(name)) {
                return Optional.of(new Problem(
                        field,
                        "'" + field + "' is not a Kubernetes resource: on Kubernetes the kubelet's podPidsLimit bounds"
                                + " a pod's processes. Leave it out."));
            }
            if (kubernetes && !kubernetesName(name)) {
                return Optional.of(new Problem(
                        field,
                        "'" + field + "' is not a resource Kubernetes knows: it takes cpu, memory, ephemeral-storage,"
                                + " hugepages-<size> and extended resources named with a domain (nvidia.com/gpu)."));
            }
            if (!kubernetes && !NAMES.contains(name)) {
                return Optional.of(new Problem(
                        field,
                        "'" + field + "' is not a limit the " + runtime + " runtime knows: it takes "
                                + String.join(", ", NAMES) + "."));
            }
            if (kubernetes || Devices.GPU.equals(name)) {
                continue; // the Kubernetes API and the device check judge these
            }
            BigDecimal q;
            try {
                q = of(t, name).orElseThrow();
            } catch (IllegalArgumentException e) {
                q = BigDecimal.valueOf(-1); // not a quantity: refused as any too small one
            }
            String bad = switch (name) {
                case CPU ->
                    q.compareTo(new BigDecimal("0.01")) < 0
                            ? "at least \"10m\" (a hundredth of a core), e.g. \"2\" or \"500m\""
                            : null;
                case MEMORY ->
                    q.compareTo(BigDecimal.valueOf(4L << 20)) < 0
                            ? "at least \"4Mi\", e.g. \"512Mi\" or \"4Gi\""
                            : null;
                default ->
                    q.compareTo(BigDecimal.valueOf(MIN_PIDS)) < 0
                                    || q.stripTrailingZeros().scale() > 0
                            ? "a whole number of at least " + MIN_PIDS
                                    + " (the room's own processes count), e.g. \"512\""
                            : null;
            };
            if (bad != null) {
                return Optional.of(new Problem(field, "'" + field + "' must be " + bad + "."));
            }
        }
        return Optional.empty();
    }
}
