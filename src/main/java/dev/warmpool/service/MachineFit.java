package dev.warmpool.service;

import com.sun.management.OperatingSystemMXBean;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.runtime.ResourceLimits;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * Sizes a pool asks for that the machine its processors run on cannot hold, as warnings for the
 * PUT's answer and the log. Warnings, not refusals: the pool may be meant for a bigger machine
 * (a config file shared between hosts), and a limit is a ceiling a job may never reach. Only for
 * the local and docker runtimes, whose processors share this machine; a Kubernetes pool's are
 * the cluster's to place.
 */
public final class MachineFit {
    /** About what one idle processor holds on its own (its agent; docs/performance.md: 55 MB RSS). */
    static final long PROCESSOR_BYTES = 64L << 20;
    /**
     * Warm processors per core beyond which a pool is a mistake rather than a choice: an idle one
     * costs little, but they all start at once, and when their jobs run they share the cores.
     */
    static final int PROCESSORS_PER_CORE = 16;

    /** What the machine has: its cores and its memory in bytes. */
    public record Machine(int cores, long memoryBytes) {
        /** This machine, as the JVM sees it (a container's limits included). */
        public static Machine here() {
            long memory = ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os
                    ? os.getTotalMemorySize()
                    : Long.MAX_VALUE;
            return new Machine(Runtime.getRuntime().availableProcessors(), memory);
        }
    }

    private MachineFit() {}

    /** Sentences on what in {@code spec} this machine cannot hold; empty when it all fits or the runtime is elsewhere. */
    public static List<String> warnings(PoolSpec spec, String runtime, Machine m) {
        List<String> out = new ArrayList<>();
        if ("kubernetes".equals(runtime)) {
            return out;
        }
        BigDecimal cpu = ResourceLimits.of(spec.template(), ResourceLimits.CPU).orElse(null);
        BigDecimal memory =
                ResourceLimits.of(spec.template(), ResourceLimits.MEMORY).orElse(null);
        if (cpu != null && cpu.compareTo(BigDecimal.valueOf(m.cores())) > 0) {
            out.add("template.resources.limits.cpu asks for "
                    + cpu.stripTrailingZeros().toPlainString() + " cores per processor; this machine has " + m.cores()
                    + ", so a job gets at most those.");
        }
        if (memory != null && memory.compareTo(BigDecimal.valueOf(m.memoryBytes())) > 0) {
            out.add("template.resources.limits.memory asks for " + mib(memory.longValue())
                    + " per processor; this machine has " + mib(m.memoryBytes()) + " in all.");
        }
        int warm = spec.minIdle();
        if (warm > PROCESSORS_PER_CORE * m.cores()) {
            out.add("minIdle " + warm + " keeps " + warm + " processors warm on a machine of " + m.cores()
                    + " cores (more than " + PROCESSORS_PER_CORE + " a core): they start at once and share the"
                    + " cores when their jobs run; a few per core is usually plenty.");
        }
        long each = memory != null ? Math.max(memory.longValue(), PROCESSOR_BYTES) : PROCESSOR_BYTES;
        if (warm > 0 && each > m.memoryBytes() / warm) {
            out.add("minIdle " + warm + ": " + warm + " warm processors of about " + mib(each) + " each"
                    + (memory != null ? " (their memory limit)" : " (an idle processor's own)") + " come to "
                    + mib(warm * each) + ", more than this machine's " + mib(m.memoryBytes()) + ".");
        }
        return out;
    }

    private static String mib(long bytes) {
        return bytes >= 10L << 30 ? (bytes >> 30) + " GiB" : (bytes >> 20) + " MiB";
    }
}
