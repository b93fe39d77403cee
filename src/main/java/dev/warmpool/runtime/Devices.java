package dev.warmpool.runtime;

import dev.warmpool.pool.PodTemplate;
import dev.warmpool.pool.PoolSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The accelerators of one machine (GPUs, by the ids {@code nvidia-smi -L} numbers them) and which
 * processor holds which: each processor of a pool whose template asks for
 * {@code resources.limits."nvidia.com/gpu"} gets that many devices of its own, and keeps them
 * until it is gone. What is held is re-read from the runtime at every {@link #held(Map)} (the
 * processors it lists say their devices: a container's label, an agent's command line), so a
 * manager that restarts knows again who holds what. Thread-safe.
 */
public final class Devices {
    /** The template's limit that asks for devices, as on Kubernetes. */
    public static final String GPU = "nvidia.com/gpu";

    private static final Pattern SMI_LINE = Pattern.compile("^GPU (\\d+):");

    private final List<String> all;
    /** Processor id -> its devices. */
    private final Map<String, List<String>> held = new HashMap<>();

    public Devices(List<String> all) {
        this.all = List.copyOf(all);
    }

    /**
     * The machine's devices: {@code configured} ({@code warmpool.runtime.devices}; {@code none} for
     * none) when set, else the GPUs {@code nvidia-smi -L} lists, none when it is absent or fails.
     */
    public static Devices of(Optional<List<String>> configured) {
        if (configured.isPresent()) {
            List<String> ids = configured.get().stream()
                    .map(String::trim)
                    .filter(s -> !s.isEmpty() && !s.equals("none"))
                    .distinct()
                    .toList();
            return new Devices(ids);
        }
        return new Devices(detect());
    }

    /** The GPU indices in {@code nvidia-smi -L}'s output ("GPU 0: NVIDIA A100 (UUID: GPU-...)"). */
    static List<String> parse(String smiOutput) {
        List<String> out = new ArrayList<>();
        for (String line : smiOutput.split("\n")) {
            Matcher m = SMI_LINE.matcher(line.trim());
            if (m.find()) {
                out.add(m.group(1));
            }
        }
        return out;
    }

    private static List<String> detect() {
        try {
            Process p = new ProcessBuilder("nvidia-smi", "-L")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                return List.of();
            }
            return parse(out);
        } catch (IOException e) {
            return List.of(); // no nvidia-smi: no GPUs
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    /** Every device of the machine. */
    public List<String> all() {
        return all;
    }

    /** How many devices one processor of {@code spec} asks for: its template's {@value #GPU} limit, 0 without. */
    public static int perProcessor(PoolSpec spec) {
        return spec == null ? 0 : perProcessor(spec.template());
    }

    public static int perProcessor(PodTemplate t) {
        if (t == null
                || t.resources() == null
                || t.resources().getLimits() == null
                || t.resources().getLimits().get(GPU) == null) {
            return 0;
        }
        BigDecimal n = Quantity.getAmountInBytes(t.resources().getLimits().get(GPU));
        return n.intValueExact();
    }

    /** What is wrong with the template's {@value #GPU} limit, if anything: it must be a whole number, 0 or more. */
    public static Optional<String> problem(PodTemplate t) {
        try {
            int n = perProcessor(t);
            return n < 0 ? Optional.of("must not be negative") : Optional.empty();
        } catch (ArithmeticException | IllegalArgumentException e) {
            return Optional.of("must be a whole number of devices, e.g. \"1\"");
        }
    }

    /** How many processors, each asking for {@code each} devices, may start now, of {@code wanted}. */
    public synchronized int startable(int each, int wanted) {
        if (each <= 0) {
            return wanted;
        }
        return Math.max(0, Math.min(wanted, free() / each));
    }

    /** Devices no processor holds. */
    public synchronized int free() {
        Set<String> used = new HashSet<>();
        held.values().forEach(used::addAll);
        return (int) all.stream().filter(d -> !used.contains(d)).count();
    }

    /**
     * {@code n} free devices for {@code processorId} (those it holds already, if it holds some);
     * none for {@code n} 0. Refused when fewer are free: the caller counts with {@link #startable}.
     */
    public synchronized List<String> assign(String processorId, int n) {
        if (n <= 0) {
            return List.of();
        }
        List<String> had = held.get(processorId);
        if (had != null && had.size() == n) {
            return had;
        }
        Set<String> used = new HashSet<>();
        held.forEach((p, d) -> {
            if (!p.equals(processorId)) {
                used.addAll(d);
            }
        });
        List<String> got = all.stream().filter(d -> !used.contains(d)).limit(n).toList();
        if (got.size() < n) {
            throw new IllegalStateException("processor " + processorId + " needs " + n + " device(s) (" + GPU
                    + "), and " + got.size() + " of the machine's " + all.size() + " are free");
        }
        held.put(processorId, got);
        return got;
    }

    /** The processor is gone (or never started): its devices are free. */
    public synchronized void release(String processorId) {
        held.remove(processorId);
    }

    /**
     * What the runtime has now, processor id -> the devices it was started with: replaces what was
     * held (a processor that is gone frees its devices; one started by an earlier manager holds its own).
     */
    public synchronized void held(Map<String, List<String>> running) {
        held.clear();
        running.forEach((p, d) -> {
            if (d != null && !d.isEmpty()) {
                held.put(p, List.copyOf(d));
            }
        });
    }

    /** Who holds what, for logs and tests. */
    public synchronized Map<String, List<String>> holders() {
        return Map.copyOf(held);
    }

    /** Devices as one value (a label, an env variable, a command-line marker). */
    public static String join(List<String> devices) {
        return String.join(",", devices);
    }

    /** The inverse of {@link #join}. */
    public static List<String> split(String value) {
        if (value == null || value.isBlank()) {
            return List.of();
        }
        return List.of(value.split(","));
    }
}
