package dev.warmpool.service;

import dev.warmpool.pool.PoolSpec;
import dev.warmpool.protocol.EnvNames;
import dev.warmpool.store.PoolStore;
import io.smallrye.mutiny.Uni;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * What a caller may submit to a pool: the pool's {@code submitters} (besides admins) and the
 * variables its {@code jobEnv} lets a job set. A submitter chooses a pool and passes data, never
 * code: the pool's command, image and env are the admin's.
 */
final class Access {
    private final PoolStore store;

    Access(PoolStore store) {
        this.store = store;
    }

    /** Names no job may set, whatever its pool allows (the loader's, the interpreters' hooks, warmpool's own). */
    static void checkEnvNames(Map<String, String> env, String field) {
        if (env == null) {
            return;
        }
        for (String name : new TreeSet<>(env.keySet())) {
            if (EnvNames.forbidden(name)) {
                throw Refusal.invalid(
                        field + "." + name,
                        "A job may not set " + UserInput.shown(name)
                                + ": it would choose what code runs inside the pool's command (LD_*, DYLD_*, WARMPOOL_*, PATH, "
                                + "HOME, BASH_ENV, PYTHONPATH, NODE_OPTIONS, JAVA_TOOL_OPTIONS and the like never can be). "
                                + "Pass data in 'config' or 'args' instead.");
            }
        }
    }

    /**
     * Checks the caller and the jobs' env against the pool, reading its spec only when there is
     * something to check (an admin submitting without env costs no extra round trip). A pool that
     * does not exist passes: the submit script answers that, in the same step as ever.
     */
    Uni<Void> check(String type, Caller caller, List<Map<String, String>> envs, List<String> fields) {
        boolean anyEnv = envs.stream().anyMatch(e -> e != null && !e.isEmpty());
        if (caller.admin() && !anyEnv) {
            return Uni.createFrom().voidItem();
        }
        return store.spec(type)
                .invoke(spec -> spec.ifPresent(s -> check(type, s, caller, envs, fields)))
                .replaceWithVoid();
    }

    /** Refuses (403) a cancel of what another caller submitted, unless the caller is an admin. */
    static void checkMayCancel(Caller caller, String what, String id, String submittedBy) {
        if (!caller.mayCancel(submittedBy)) {
            throw new Refusal(
                            Refusal.Kind.FORBIDDEN,
                            "forbidden",
                            "Forbidden",
                            what + " " + id + " was submitted by '" + submittedBy
                                    + "'; only they or an admin may cancel it.")
                    .with("submittedBy", submittedBy);
        }
    }

    /** Only the sweep's submitter (or its driver, who acts as them) or an admin adds trials to an external sweep. */
    static Refusal mayNotAddTrials(String id, String submittedBy) {
        return new Refusal(
                        Refusal.Kind.FORBIDDEN,
                        "forbidden",
                        "Forbidden",
                        "Sweep " + id + " was submitted by '" + submittedBy
                                + "'; only they or an admin may add its trials.")
                .with("submittedBy", submittedBy);
    }

    static void check(String type, PoolSpec spec, Caller caller, List<Map<String, String>> envs, List<String> fields) {
        if (!caller.admin() && !spec.admits(caller.name(), caller.roles())) {
            throw new Refusal(
                            Refusal.Kind.FORBIDDEN,
                            "forbidden",
                            "Forbidden",
                            "'" + caller.name() + "' may not submit to pool '" + type + "': it admits "
                                    + String.join(", ", spec.submitters()) + " (its submitters) and admins.")
                    .with("pool", type);
        }
        for (int i = 0; i < envs.size(); i++) {
            Map<String, String> env = envs.get(i);
            if (env == null) {
                continue;
            }
            for (String name : new TreeSet<>(env.keySet())) {
                if (!EnvNames.allowed(name, spec.jobEnv())) {
                    throw Refusal.invalid(
                            fields.get(i) + "." + name,
                            "Pool '" + type + "' does not let a job set "
                                    + UserInput.shown(name) + "; "
                                    + (spec.jobEnv() == null
                                            ? "it lets a job set no variables"
                                            : "it lets a job set " + String.join(", ", spec.jobEnv()))
                                    + " (its jobEnv, which an admin sets).");
                }
            }
        }
    }
}
