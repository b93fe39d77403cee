package dev.warmpool.service;

import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.config.WarmthParams;
import dev.warmpool.policy.FairShare;
import dev.warmpool.policy.PoolSnapshot;
import dev.warmpool.pool.Ids;
import dev.warmpool.pool.PodTemplate;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.protocol.EnvNames;
import dev.warmpool.protocol.script.Refused;
import dev.warmpool.protocol.script.TenantsReply;
import dev.warmpool.runtime.Runtimes;
import dev.warmpool.store.PoolStore;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.validation.Validator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.jboss.logging.Logger;

/** Pools: create, read, drain. Every answer reads Redis afresh; the manager keeps no state. */
@ApplicationScoped
public class PoolService {
    private static final Logger LOG = Logger.getLogger(PoolService.class);

    private final PoolStore store;
    private final ReconcilerPort reconciler;
    private final Validator validator;
    private final WarmpoolConfig config;
    private final Runtimes runtimes;

    public PoolService(
            PoolStore store, ReconcilerPort reconciler, Validator validator, WarmpoolConfig config, Runtimes runtime) {
        this.runtimes = runtime;
        this.store = store;
        this.reconciler = reconciler;
        this.validator = validator;
        this.config = config;
    }

    /** A PUT's outcome: whether it made the pool, the pool, and what about its sizes may be wrong ({@link MachineFit}). */
    public record Put(boolean created, PoolView pool, List<String> warnings) {
        /** What the API answers: the pool's view, with {@code warnings} beside its fields when there are any. */
        public Object body() {
            return warnings.isEmpty() ? pool : new Warned(pool, warnings);
        }
    }

    /** A pool's view and the warnings of the PUT that made it, as one JSON object. */
    public record Warned(
            @com.fasterxml.jackson.annotation.JsonUnwrapped PoolView pool, List<String> warnings) {}

    /**
     * Checks the request, a body or a pool declared in config (off the event loop: the runtime's
     * checks read the file system or ask the Docker engine), fills in its defaults, then puts the pool.
     */
    public Uni<Put> put(String type, PoolSpec request) {
        return Uni.createFrom()
                .item(() -> check(type, request))
                .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
                .flatMap(spec -> warned(type, spec));
    }

    private Uni<Put> warned(String type, PoolSpec spec) {
        List<String> warnings = MachineFit.warnings(spec, runtimes.nameOf(spec), MachineFit.Machine.here());
        warnings.forEach(w -> LOG.warnf("pool %s: %s", type, w));
        return putChecked(type, spec).map(put -> new Put(put.created(), put.pool(), warnings));
    }

    private Uni<Put> putChecked(String type, PoolSpec spec) {
        return store.snapshot(type).invoke(old -> sameRuntime(type, old, spec)).flatMap(old -> stored(type, spec));
    }

    /**
     * A pool keeps its runtime: its processors live there, and would go on taking its jobs after a
     * change (as a gang pool's cannot become single processors).
     */
    private void sameRuntime(String type, Optional<PoolSnapshot> old, PoolSpec spec) {
        old.filter(s -> !s.draining())
                .map(s -> runtimes.nameOf(s.spec()))
                .filter(was -> !was.equals(spec.runtime()))
                .ifPresent(was -> {
                    throw Refusal.conflict(
                                    "runtime-change",
                                    "Pool '" + type + "' runs on the " + was
                                            + " runtime; its processors cannot move to "
                                            + spec.runtime() + " in place. DELETE /pools/" + type
                                            + " first, then PUT it again (or leave 'runtime' as \"" + was + "\").")
                            .with("field", "runtime");
                });
    }

    private Uni<Put> stored(String type, PoolSpec spec) {
        return store.putPool(type, spec)
                .onFailure(PoolStore.GangChange.class)
                .transform(e -> Refusal.conflict(
                        "gang-change",
                        "Pool '" + type
                                + "' " + (spec.isGang() ? "is not a gang pool" : "is a gang pool")
                                + "; its processors cannot change "
                                + "kind in place. DELETE /pools/" + type + " first, then PUT it again."))
                .invoke(created -> reconciler.nudge(type))
                .flatMap(created -> get(type).map(view -> new Put(created, view, List.of())));
    }

    public Uni<PoolView> get(String type) {
        return view(type).flatMap(v -> v.isPresent() ? Uni.createFrom().item(v.get()) : unknownType(type));
    }

    /** A pool's snapshot and its tenants, read side by side. */
    private Uni<Optional<PoolView>> view(String type) {
        return Uni.combine()
                .all()
                .unis(store.snapshot(type), store.tenants(type))
                .asTuple()
                .map(t -> t.getItem1()
                        .map(s -> PoolView.of(
                                        s,
                                        WarmthParams.of(config),
                                        t.getItem2() instanceof TenantsReply.Tenants ts ? ts.tenants() : List.of())
                                .withSpec(withRuntime(s.spec()))));
    }

    /** A spec stored before pools named their runtime shows the one it runs on. */
    private PoolSpec withRuntime(PoolSpec spec) {
        return spec.runtime() == null ? spec.withRuntime(runtimes.nameOf(spec)) : spec;
    }

    public Uni<List<PoolView>> list() {
        return store.types()
                .flatMap(types -> types.isEmpty()
                        ? Uni.createFrom().item(List.<PoolView>of())
                        : Uni.join()
                                .all(types.stream().map(this::view).toList())
                                .andFailFast()
                                .map(all ->
                                        all.stream().flatMap(Optional::stream).toList()));
    }

    public Uni<PoolView> delete(String type) {
        return store.deletePool(
                        type,
                        "pool " + type + " was deleted",
                        config.jobs().retention().toSeconds())
                .flatMap(done -> done instanceof Refused.NoPool
                        ? unknownType(type)
                        // the draining pool is read before the reconciler is woken: its pass may collect the
                        // pool as soon as its idle processors have gone (a DELETE answered 404 so, once)
                        : view(type).invoke(v -> reconciler.nudge()).map(v -> v.orElseGet(() -> drained(type))));
    }

    /** A deleted pool whose processors were already gone when it was read: drained, and collected. */
    private static PoolView drained(String type) {
        return new PoolView(type, "DRAINING", null, new PoolView.Status(0, 0, 0, 0, 0), List.of(), null, null);
    }

    /**
     * The newest {@code n} items over one pool ({@code type}) or all, each pool read in parallel,
     * newest first by {@code newest}.
     */
    public <T> Uni<List<T>> newestOverPools(
            String type, int n, Function<String, Uni<List<T>>> ofPool, Comparator<T> newest) {
        Uni<List<String>> types;
        if (type == null || type.isEmpty()) {
            types = store.types();
        } else {
            UserInput.checkType(type);
            types = Uni.createFrom().item(List.of(type));
        }
        return types.flatMap(ts -> ts.isEmpty()
                ? Uni.createFrom().item(List.<T>of())
                : Uni.join()
                        .all(ts.stream().map(ofPool).toList())
                        .andFailFast()
                        .map(all -> all.stream()
                                .flatMap(List::stream)
                                .sorted(newest)
                                .limit(n)
                                .toList()));
    }

    /** A 404 that names the types there are. */
    public <T> Uni<T> unknownType(String type) {
        return store.types().map(types -> {
            throw Refusal.notFound(
                            "unknown-type",
                            "There is no pool for job type '" + UserInput.shown(type) + "'; "
                                    + (types.isEmpty()
                                            ? "there are no pools yet"
                                            : "known types: " + String.join(", ", types))
                                    + ". Create it with PUT /pools/" + (Ids.validType(type) ? type : "{type}") + ".")
                    .with("knownTypes", types);
        });
    }

    /** The request as a complete, valid spec, or a problem naming the field. */
    PoolSpec check(String type, PoolSpec request) {
        UserInput.checkType(type);
        if (request == null) {
            throw Refusal.invalid(
                    "command",
                    "The request needs a JSON body with at least 'command', e.g. "
                            + "{\"command\": [\"python3\", \"train.py\"]}.");
        }
        return checkSpec(type, request.withDefaults());
    }

    private PoolSpec checkSpec(String type, PoolSpec candidate) {
        UserInput.checkType(type);
        PoolSpec valid = BodyValidation.valid(validator, candidate, "the pool");
        if (valid.template() != null) {
            checkPolicy(valid.template()); // whatever the runtime
        }
        PoolSpec spec = runtime(valid);
        if ((spec.command() == null || spec.command().isEmpty()) && !spec.rolesHaveCommands()) {
            throw Refusal.invalid(
                    "command",
                    "'command' must name the program to run, e.g. [\"python3\", \"train.py\"]"
                            + (spec.isGang() ? "; or give every role of the gang its own 'command'." : "."));
        }
        if (spec.isGang()) {
            if (spec.gang().keySet().stream().allMatch(PoolSpec.PARAMETER_SERVER::equals)) {
                throw Refusal.invalid(
                        "gang",
                        "A gang needs a role besides 'ps' (parameter servers serve the others), e.g. "
                                + "{\"ps\": {\"count\": 1}, \"worker\": {\"count\": 2}}.");
            }
            if (spec.members().size() > 64) {
                throw Refusal.invalid(
                        "gang",
                        "A gang may have at most 64 members; this one has "
                                + spec.members().size() + ".");
            }
            if (spec.persistent() || spec.maxJobsPerProcessor() != null) {
                throw Refusal.invalid(
                        spec.persistent() ? "worker" : "maxJobsPerProcessor",
                        "A gang pool runs a new process "
                                + "per member and job and reuses its gangs; leave 'worker' and 'maxJobsPerProcessor' out.");
            }
        }
        spec = network(spec);
        checkJobEnv(spec);
        FairShare.problem(spec).ifPresent(p -> {
            throw Refusal.invalid(p.field(), p.detail());
        });
        checkTemplate(spec);
        runtimes.commandProblem(spec).ifPresent(p -> {
            throw Refusal.invalid(p.field(), p.detail());
        });
        if (spec.minIdle() > spec.maxSize()) {
            throw Refusal.invalid(
                    "minIdle",
                    "'minIdle' (" + spec.minIdle() + ") must not exceed 'maxSize' (" + spec.maxSize() + ").");
        }
        return spec;
    }

    /**
     * The spec with its runtime filled in (the manager's default where it names none), so that it
     * keeps it when the manager's default changes; refused when this manager does not hold it.
     */
    private PoolSpec runtime(PoolSpec spec) {
        String name = runtimes.nameOf(spec);
        runtimes.lacks(name).ifPresent(why -> {
            throw Refusal.invalid(
                            "runtime",
                            "The pool's processors would run on the " + name + " runtime"
                                    + (spec.runtime() != null
                                            ? ""
                                            : name.equals(runtimes.defaultName())
                                                    ? " (the manager's default)"
                                                    : " (its template names an image: it runs in containers)")
                                    + ", but " + why
                                    + ". It would not be run elsewhere: name another 'runtime' (this manager has "
                                    + String.join(", ", runtimes.names()) + ").")
                    .with("runtimes", runtimes.names());
        });
        return spec.withRuntime(name);
    }

    /** Read once: whether this manager (and so its local agents) runs as root. */
    private static final boolean MANAGER_IS_ROOT = isRoot();

    private static boolean isRoot() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * The pool's network as this runtime gives it, its default filled in: on the local runtime
     * {@code none} (a job reaches no port of the host; see docs/security.md), and a gang must say
     * {@code host}, as its members meet on the host's loopback; on docker and Kubernetes each
     * processor is a container or pod on its own network, which is {@code outbound}.
     */
    private PoolSpec network(PoolSpec spec) {
        String runtimeType = spec.runtime();
        String n = spec.network();
        if ("local".equals(runtimeType)) {
            if (spec.isGang() && !PoolSpec.NETWORK_HOST.equals(n)) {
                throw Refusal.invalid(
                        "network",
                        "A gang's members meet on the host's loopback on the local runtime, which a job in a network"
                                + " of its own cannot reach: set 'network' to \"host\" to give this gang's jobs the host's"
                                + " network (its loopback services, the manager's port included).");
            }
            if (PoolSpec.NETWORK_OUTBOUND.equals(n) && !MANAGER_IS_ROOT) {
                throw Refusal.invalid(
                        "network",
                        "\"outbound\" needs a manager that runs as root on the local runtime: a non-root manager's"
                                + " rooms are in bubblewrap's own user namespace, whose network slirp4netns cannot join."
                                + " Use \"none\", or \"host\" for the host's network.");
            }
            return n == null ? spec.withNetwork(PoolSpec.NETWORK_NONE) : spec;
        }
        if (n != null && !PoolSpec.NETWORK_OUTBOUND.equals(n)) {
            throw Refusal.invalid(
                    "network",
                    "On the " + runtimeType + " runtime each processor is a container with a network of its own"
                            + " (the processor's agent needs it to reach Redis), so 'network' can only be \"outbound\""
                            + " (or left out); \"none\" and \"host\" are for the local runtime.");
        }
        return n == null ? spec.withNetwork(PoolSpec.NETWORK_OUTBOUND) : spec;
    }

    private static void checkJobEnv(PoolSpec spec) {
        List<String> jobEnv = spec.jobEnv() == null ? List.of() : spec.jobEnv();
        for (int i = 0; i < jobEnv.size(); i++) {
            String p = jobEnv.get(i);
            String name = p.endsWith("*") ? p.substring(0, p.length() - 1) : p;
            if (EnvNames.forbidden(name)) {
                throw Refusal.invalid(
                        "jobEnv[" + i + "]",
                        "'" + p + "' can never be set by a job, even when a pool lists it: "
                                + "it would let the job choose what code runs. Set it in the pool's 'env' if the pool needs it.");
            }
        }
    }

    /**
     * What the pool's runtime can honour: a container image on docker, a pod on Kubernetes, only
     * limits on local (whose processors are processes of this machine).
     */
    private void checkTemplate(PoolSpec spec) {
        runtimes.templateProblem(spec).ifPresent(p -> {
            throw Refusal.invalid(p.field(), p.detail());
        });
        if (spec.template() != null) {
            DeviceCheck.check(spec, runtimes.devices(spec));
        }
    }

    /** The operator's policy: allowed images, no host access unless allowed (403: no runtime changes that). */
    private void checkPolicy(PodTemplate t) {
        List<String> images = config.policy().images().orElse(List.of());
        if (!images.isEmpty() && t.image() != null && images.stream().noneMatch(t.image()::startsWith)) {
            throw new Refusal(
                            Refusal.Kind.FORBIDDEN,
                            "forbidden",
                            "Forbidden",
                            "The image '" + UserInput.shown(t.image()) + "' is not one this "
                                    + "warmpool may run: its images start with " + String.join(", ", images)
                                    + " (warmpool.policy.images).")
                    .with("field", "template.image");
        }
        if (t.hostAccess() && !config.policy().allowHostAccess()) {
            throw new Refusal(
                            Refusal.Kind.FORBIDDEN,
                            "forbidden",
                            "Forbidden",
                            "The template asks for host access (a hostPath volume or a "
                                    + "privileged container), which this warmpool does not allow (warmpool.policy.allow-host-access).")
                    .with(
                            "field",
                            t.securityContext() != null
                                            && Boolean.TRUE.equals(
                                                    t.securityContext().getPrivileged())
                                    ? "template.securityContext.privileged"
                                    : "template.volumes");
        }
    }
}
