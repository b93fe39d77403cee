package dev.warmpool.runtime;

import dev.warmpool.pool.PodTemplate;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.runtime.local.LocalTemplate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * The runtimes one manager holds (local processes beside containers, say), each pool's processors
 * routed to the runtime its spec names ({@code runtime}, else {@link #nameOf}: the manager's
 * default, {@code warmpool.runtime.type}, but docker for an image on a local manager). A pool whose runtime this manager lacks is never run on another:
 * its starts fail with {@link Missing}, which the reconciler records as the pool's startError.
 */
public class Runtimes implements ProcessorRuntime {
    public static final String LOCAL = "local";
    public static final String DOCKER = "docker";
    public static final String KUBERNETES = "kubernetes";
    /** Every runtime a pool may name. */
    public static final List<String> NAMES = List.of(LOCAL, DOCKER, KUBERNETES);

    /** A start for a pool whose runtime this manager does not hold; its message says why and what to set. */
    public static final class Missing extends IllegalStateException {
        public Missing(String message) {
            super(message);
        }
    }

    private final String defaultName;
    private final Map<String, ProcessorRuntime> held;
    /** Why each runtime this manager lacks is not here, by name (e.g. its engine did not answer). */
    private final Map<String, String> absent;

    /**
     * {@code held}: the runtimes by name, the default among them; {@code absent}: for a runtime left
     * out, the sentence that says why (a runtime in neither is simply not configured).
     */
    public Runtimes(String defaultName, Map<String, ProcessorRuntime> held, Map<String, String> absent) {
        if (!held.containsKey(defaultName)) {
            throw new IllegalArgumentException("the default runtime " + defaultName + " is not among " + held.keySet());
        }
        this.defaultName = defaultName;
        this.held = new LinkedHashMap<>(held);
        this.absent = Map.copyOf(absent);
    }

    /** One runtime alone (a test's, or a manager that holds no other). */
    public static Runtimes only(String name, ProcessorRuntime runtime) {
        return new Runtimes(name, Map.of(name, runtime), Map.of());
    }

    /** The runtime a pool without {@code runtime} gets: {@code warmpool.runtime.type}. */
    public String defaultName() {
        return defaultName;
    }

    /** The names of the runtimes this manager holds, the default first. */
    public List<String> names() {
        List<String> out = new ArrayList<>(List.of(defaultName));
        held.keySet().stream().filter(n -> !n.equals(defaultName)).forEach(out::add);
        return out;
    }

    /**
     * The runtime {@code spec} runs on: its own; else, where the default is local, docker for a
     * pool whose template names an image (a pool with an image runs in containers, never on the
     * host without it); else the default. A spec stored before pools named their runtime is read so too.
     */
    public String nameOf(PoolSpec spec) {
        if (spec == null) {
            return defaultName;
        }
        if (spec.runtime() != null) {
            return spec.runtime();
        }
        boolean image = spec.template() != null
                && spec.template().image() != null
                && !LocalTemplate.PLACEHOLDER.equals(spec.template().image());
        return LOCAL.equals(defaultName) && image ? DOCKER : defaultName;
    }

    /** Why this manager cannot run pools on {@code name}, empty when it can. */
    public Optional<String> lacks(String name) {
        if (held.containsKey(name)) {
            return Optional.empty();
        }
        String why = absent.getOrDefault(name, how(name));
        return Optional.of(
                "this manager has no " + name + " runtime (it has " + String.join(", ", names()) + "): " + why);
    }

    private static String how(String name) {
        return switch (name) {
            case DOCKER ->
                "start it with warmpool.runtime.docker.host set (its Docker or Podman engine must answer),"
                        + " or with warmpool.runtime.type=docker";
            case KUBERNETES -> "a manager runs pods when started with warmpool.runtime.type=kubernetes";
            default -> "a manager with warmpool.runtime.type=kubernetes runs no processes of its own";
        };
    }

    @Override
    public void start(String type, String processorId, PoolSpec spec) {
        String name = nameOf(spec);
        ProcessorRuntime r = held.get(name);
        if (r == null) {
            throw new Missing("pool " + type + " runs on the " + name + " runtime, and "
                    + lacks(name).orElseThrow());
        }
        r.start(type, processorId, spec);
    }

    /** Each runtime stops only what it has, so a stop goes to all: a processor is found where it lives. */
    @Override
    public void stop(String type, String processorId) {
        held.values().forEach(r -> r.stop(type, processorId));
    }

    @Override
    public List<Running> list() {
        if (held.size() == 1) {
            return held.values().iterator().next().list();
        }
        List<Running> out = new ArrayList<>();
        held.values().forEach(r -> out.addAll(r.list()));
        return out;
    }

    @Override
    public void poolRemoved(String type) {
        held.values().forEach(r -> r.poolRemoved(type));
    }

    @Override
    public void onChange(Runnable changed) {
        held.values().forEach(r -> r.onChange(changed));
    }

    @Override
    public void onGone(BiConsumer<String, String> gone) {
        held.values().forEach(r -> r.onGone(gone));
    }

    @Override
    public void prepare() {
        held.values().forEach(ProcessorRuntime::prepare);
    }

    /** The default runtime's devices. */
    @Override
    public Optional<Devices> devices() {
        return held.get(defaultName).devices();
    }

    /**
     * What a pool's template asks that its runtime cannot honour, as the field and a sentence: a
     * container image on docker, a pod on Kubernetes, only limits on local (whose processors are
     * processes of this machine), and limit names the runtime does not know.
     */
    public Optional<ResourceLimits.Problem> templateProblem(PoolSpec spec) {
        PodTemplate t = spec.template();
        ProcessorRuntime r = held.get(spec.runtime());
        Optional<ResourceLimits.Problem> own = r == null ? Optional.empty() : r.templateProblem(t, held.keySet());
        if (own.isPresent() || t == null) {
            return own;
        }
        return ResourceLimits.problem(t, spec.runtime());
    }

    /** The pool's own runtime's check of its command (the local runtime's: it exists and the jobs' user may run it). */
    @Override
    public Optional<ResourceLimits.Problem> commandProblem(PoolSpec spec) {
        ProcessorRuntime r = held.get(nameOf(spec));
        return r == null ? Optional.empty() : r.commandProblem(spec);
    }

    @Override
    public Optional<Devices> devices(PoolSpec spec) {
        ProcessorRuntime r = held.get(nameOf(spec));
        return r == null ? Optional.empty() : r.devices(spec);
    }

    /** Whether this manager may reconcile: every runtime that elects a leader must have chosen it. */
    @Override
    public boolean leads() {
        return held.values().stream().allMatch(ProcessorRuntime::leads);
    }
}
