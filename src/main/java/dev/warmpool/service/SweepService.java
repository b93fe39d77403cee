package dev.warmpool.service;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warmpool.auth.DriverTokens;
import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.pool.Ids;
import dev.warmpool.pool.Job;
import dev.warmpool.pool.StoredJson;
import dev.warmpool.pool.Timestamps;
import dev.warmpool.protocol.Fields.JobHash;
import dev.warmpool.protocol.Fields.SweepHash;
import dev.warmpool.protocol.JobState;
import dev.warmpool.protocol.script.Idempotency;
import dev.warmpool.protocol.script.Refused;
import dev.warmpool.protocol.script.SweepAddReply;
import dev.warmpool.protocol.script.SweepCancelReply;
import dev.warmpool.protocol.script.SweepGetReply;
import dev.warmpool.protocol.script.SweepJournalReply;
import dev.warmpool.store.PoolStore;
import dev.warmpool.sweep.EarlyStopping;
import dev.warmpool.sweep.Objective;
import dev.warmpool.sweep.OptunaCatalogue;
import dev.warmpool.sweep.SearchSpace;
import dev.warmpool.sweep.Sweep;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.validation.Validator;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Sweeps: a search space turned into configurations, each run as a trial job of the pool. The
 * manager only draws the configurations and stores them with the sweep in one script; the
 * scripts that end jobs release trials (at most {@code parallelism} out at once), keep the best
 * trial and apply the median rule, so a sweep goes on while no manager runs.
 */
@ApplicationScoped
public class SweepService {
    /** Most trials of one sweep; the grid algorithm refuses a larger product. */
    public static final int MAX_TRIALS = 10_000;

    /** The algorithm of a sweep whose driver adds each trial ({@link #addTrial}). */
    public static final String EXTERNAL = "external";
    /** How long a driver job may be missing after it was named (the sweep is stored a moment before it). */
    static final long DRIVER_STORE_GRACE_MS = 60_000;

    /** The algorithm of a sweep whose Optuna study the manager runs as a driver job ({@link SweepDrivers}). */
    public static final String OPTUNA = "optuna";
    /** An Optuna sweep's trials out at once unless it says: a sampler learns only from trials that ended. */
    static final int OPTUNA_PARALLELISM = 4;
    /** Most trials an Optuna sweep has out at once: its driver follows each (an event stream of its submitter's). */
    static final int MAX_OPTUNA_PARALLELISM = 16;
    /** The largest seed an Optuna sampler takes (NumPy's RandomState). */
    static final long MAX_OPTUNA_SEED = 4_294_967_295L;

    private static final SecureRandom SEEDS = new SecureRandom();

    private final PoolStore store;
    private final PoolService pools;
    private final ReconcilerPort reconciler;
    private final Validator validator;
    private final WarmpoolConfig config;
    private final ObjectMapper json;
    private final SubmitLimiter limiter;
    private final Access access;
    private final JobService jobs;
    private final IdempotencyKeys keys;
    private final SweepDrivers drivers;

    public SweepService(
            PoolStore store,
            PoolService pools,
            ReconcilerPort reconciler,
            Validator validator,
            WarmpoolConfig config,
            ObjectMapper json,
            SubmitLimiter limiter,
            JobService jobs,
            IdempotencyKeys keys,
            SweepDrivers drivers) {
        this.drivers = drivers;
        this.jobs = jobs;
        this.keys = keys;
        this.limiter = limiter;
        this.access = new Access(store);
        this.store = store;
        this.pools = pools;
        this.reconciler = reconciler;
        this.validator = validator;
        this.config = config;
        this.json = json;
    }

    public Uni<Sweep> submit(SweepRequest request, String idempotencyKey, Caller caller) {
        SweepRequest r = BodyValidation.valid(
                validator,
                request,
                "at least {\"type\": \"<job type>\", \"space\": {\"lr\": " + "{\"grid\": [0.01, 0.1]}}}");
        UserInput.checkType(r.type());
        Access.checkEnvNames(r.env(), "env");
        Sweep.Spec spec = normalize(r, config.sweeps().driverPool());
        boolean optuna = OPTUNA.equals(spec.algorithm());
        boolean external = EXTERNAL.equals(spec.algorithm()) || optuna;
        if (optuna && !config.auth().enabled()) {
            throw Refusal.conflict(
                    "sweep-driver-needs-auth",
                    "An Optuna sweep's driver reaches the API with a token good for its sweep only, and with"
                            + " warmpool.auth.enabled=false there are no tokens: turn authentication on, or run the study"
                            + " from a notebook (warmpool.optuna.optimize).");
        }
        List<Map<String, Object>> configs = external ? List.of() : configurations(r, spec);
        Idempotency idem = keys.check(idempotencyKey, r, caller);
        limiter.take(caller, configs.size()); // an external sweep's trials are taken as they are added
        String id = Ids.newJobId(r.type(), System.currentTimeMillis());
        if (optuna) {
            return drivers.pool(r.driver(), caller)
                    .flatMap(pool -> store(r, spec, id, idem, idempotencyKey, caller, configs, pool));
        }
        return store(r, spec, id, idem, idempotencyKey, caller, configs, null);
    }

    /** Stores the sweep (and, for {@code driverPool} not null, starts its driver there); the sweep as it is then. */
    private Uni<Sweep> store(
            SweepRequest r,
            Sweep.Spec spec,
            String id,
            Idempotency idem,
            String idempotencyKey,
            Caller caller,
            List<Map<String, Object>> configs,
            String driverPool) {
        boolean external = configs.isEmpty() && (EXTERNAL.equals(spec.algorithm()) || driverPool != null);
        Map<String, String> sweep = new LinkedHashMap<>();
        sweep.put(SweepHash.TYPE, r.type());
        sweep.put(SweepHash.PARALLELISM, Integer.toString(spec.parallelism()));
        sweep.put(
                SweepHash.METRIC,
                spec.objective() == null ? "" : spec.objective().metric());
        sweep.put(
                SweepHash.GOAL, spec.objective() == null ? "" : spec.objective().goal());
        sweep.put(
                SweepHash.MAX_FAILED_TRIALS,
                spec.maxFailedTrials() == null ? "-1" : spec.maxFailedTrials().toString());
        EarlyStopping stopping = spec.earlyStopping();
        sweep.put(SweepHash.EARLY_STOPPING, stopping == null ? "" : stopping.rule());
        sweep.put(
                SweepHash.MIN_STEPS,
                stopping == null ? "0" : stopping.minSteps().toString());
        sweep.put(
                SweepHash.MIN_TRIALS,
                stopping == null ? "0" : stopping.minTrials().toString());
        sweep.put(SweepHash.SPEC, store.write(spec));
        sweep.put(SweepHash.SUBMITTED_BY, caller.name());
        Map<String, String> shared = new LinkedHashMap<>();
        shared.put(JobHash.TYPE, r.type());
        int priority = r.priority() == null ? 0 : r.priority();
        shared.put(JobHash.PRIORITY, Integer.toString(priority));
        shared.put(
                JobHash.TIMEOUT_SECONDS,
                Integer.toString(
                        r.timeoutSeconds() == null ? config.jobs().defaultTimeoutSeconds() : r.timeoutSeconds()));
        shared.put(
                JobHash.MAX_ATTEMPTS,
                Integer.toString(r.maxAttempts() == null ? config.jobs().defaultMaxAttempts() : r.maxAttempts()));
        shared.put(JobHash.ARGS, store.write(r.args() == null ? List.of() : r.args()));
        shared.put(JobHash.ENV, store.write(r.env() == null ? Map.of() : r.env()));
        shared.put(JobHash.SUBMITTED_BY, caller.name());
        if (external) {
            // the most trials its driver adds, and the fields each gets (sweep_add.lua)
            sweep.put(SweepHash.TOTAL, Integer.toString(r.trials()));
            List<String> pairs = new ArrayList<>();
            shared.forEach((k, v) -> {
                pairs.add(k);
                pairs.add(v);
            });
            sweep.put(SweepHash.TRIAL_FIELDS, store.write(pairs));
        }
        DriverTokens.Minted token = null;
        String driverId = null;
        if (driverPool != null) {
            token = DriverTokens.mint(id);
            driverId = Ids.newJobId(driverPool, System.currentTimeMillis());
            sweep.put(SweepHash.DRIVER_TOKEN, token.hash());
            sweep.put(SweepHash.DRIVER, driverId);
        }
        String driverJobId = driverId;
        String driverToken = token == null ? null : token.token();
        Map<String, String> trials = new LinkedHashMap<>();
        for (int i = 0; i < configs.size(); i++) {
            trials.put(Ids.trialId(id, i), store.write(configs.get(i)));
        }
        return access.check(r.type(), caller, Collections.singletonList(r.env()), List.of("env"))
                .flatMap(ok -> store.putSweep(r.type(), id, idem, priority, sweep, shared, trials))
                .flatMap(reply -> {
                    if (reply instanceof Refused refused) {
                        return jobs.refused(
                                refused,
                                r.type(),
                                "sweeps",
                                "",
                                d -> idem.fingerprint().equals(d.fingerprint())
                                        ? get(d.first())
                                        : Uni.createFrom().failure(keys.reused(idempotencyKey, "sweep", d.first())));
                    }
                    reconciler.nudge(); // the pool grows to the sweep's parallelism now, not at the next tick
                    if (driverPool == null) {
                        return get(id);
                    }
                    return drivers.start(
                                    driverPool,
                                    driverJobId,
                                    id,
                                    study(id, r.type(), spec, r.trials()),
                                    driverToken,
                                    caller)
                            .onFailure()
                            .call(e -> store.cancelSweep(
                                    r.type(),
                                    id,
                                    "its driver could not be started: " + e.getMessage(),
                                    config.jobs().retention().toSeconds()))
                            .flatMap(x -> get(id));
                });
    }

    /** What a server-side sweep's driver is given as its config: the study to run (warmpool/driver.py reads it). */
    private JsonNode study(String id, String type, Sweep.Spec spec, int trials) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("sweep", id);
        c.put("type", type);
        c.put("space", spec.space());
        c.put("objective", spec.objective());
        c.put("trials", trials);
        c.put("parallelism", spec.parallelism());
        c.put("seed", spec.seed());
        c.put("sampler", spec.sampler());
        if (spec.pruner() != null) {
            c.put("pruner", spec.pruner());
        }
        return json.valueToTree(c);
    }

    /**
     * The request with every default filled in; a random or Optuna sweep without a seed gets one, shown
     * back; an Optuna sweep's driver runs on {@code driverPool} unless it names its own.
     */
    private static Sweep.Spec normalize(SweepRequest r, String driverPool) {
        boolean optuna = OPTUNA.equals(r.algorithm());
        if (!optuna && (r.sampler() != null || r.pruner() != null || r.driver() != null)) {
            throw Refusal.invalid(
                    r.sampler() != null ? "sampler" : r.pruner() != null ? "pruner" : "driver",
                    "'sampler', 'pruner' and 'driver' belong to a study the manager runs (\"algorithm\": \"optuna\").");
        }
        if (optuna) {
            if (r.trials() == null) {
                throw Refusal.invalid(
                        "trials", "An Optuna sweep needs 'trials': how many trials its study runs, e.g. 40.");
            }
            if (r.objective() == null) {
                throw Refusal.invalid(
                        "objective",
                        "An Optuna study optimizes one metric of its trials: give 'objective', e.g."
                                + " {\"metric\": \"loss\", \"goal\": \"minimize\"}.");
            }
            if (r.earlyStopping() != null) {
                throw Refusal.invalid(
                        "earlyStopping",
                        "An Optuna study stops trials early by its pruner: give 'pruner', e.g. {\"name\":"
                                + " \"MedianPruner\", \"args\": {\"n_warmup_steps\": 2}}.");
            }
            for (String field : List.of("sampler", "pruner")) {
                OptunaCatalogue.Part part = "sampler".equals(field) ? r.sampler() : r.pruner();
                OptunaCatalogue.Problem p = part == null ? null : OptunaCatalogue.check(field, part);
                if (p != null) {
                    throw Refusal.invalid(p.field(), p.detail());
                }
            }
            if (r.driver() != null) {
                UserInput.checkType(r.driver(), "driver");
            }
        }
        if (EXTERNAL.equals(r.algorithm())) {
            if (r.trials() == null) {
                throw Refusal.invalid(
                        "trials",
                        "An external sweep needs 'trials': the most trials its driver adds (POST /sweeps/{id}/trials);"
                                + " the sweep ends when that many have ended, or when it is cancelled.");
            }
            if (r.seed() != null) {
                throw Refusal.invalid(
                        "seed",
                        "An external sweep's driver chooses its configurations, so 'seed' is its own to use;"
                                + " the random algorithm takes one (\"algorithm\": \"random\").");
            }
            if (r.space() != null && !r.space().isNull()) {
                configurationsOf(r.space()); // shown with the sweep, so it must read as a space does
            }
        } else if (r.space() == null || r.space().isNull()) {
            throw Refusal.invalid(
                    "space",
                    "'space' is required: an object of parameters, e.g. "
                            + "{\"lr\": {\"logUniform\": [0.0001, 0.1]}, \"layers\": {\"grid\": [2, 4]}}.");
        }
        String algorithm = r.algorithm() == null ? (r.trials() == null ? "grid" : "random") : r.algorithm();
        if ("grid".equals(algorithm) && (r.trials() != null || r.seed() != null)) {
            throw Refusal.invalid(
                    r.trials() != null ? "trials" : "seed",
                    "The grid algorithm runs every combination of "
                            + "the space once; 'trials' and 'seed' belong to the random algorithm (\"algorithm\": \"random\").");
        }
        if ("random".equals(algorithm) && r.trials() == null) {
            throw Refusal.invalid(
                    "trials", "The random algorithm needs 'trials': how many configurations to draw, e.g. 32.");
        }
        Objective objective = r.objective() == null
                ? null
                : new Objective(
                        r.objective().metric(),
                        r.objective().goal() == null
                                ? "minimize"
                                : r.objective().goal());
        EarlyStopping stopping = r.earlyStopping();
        if (stopping != null) {
            if (objective == null) {
                throw Refusal.invalid(
                        "earlyStopping",
                        "Early stopping compares trials by the objective; give an "
                                + "'objective', e.g. {\"metric\": \"loss\", \"goal\": \"minimize\"}.");
            }
            stopping = new EarlyStopping(
                    stopping.rule() == null ? "median" : stopping.rule(),
                    stopping.minSteps() == null ? 1 : stopping.minSteps(),
                    stopping.minTrials() == null ? 3 : stopping.minTrials());
        }
        if (optuna) {
            configurationsOf(r.space()); // its driver turns it into Optuna's distributions
        }
        if (optuna && r.seed() != null && r.seed() > MAX_OPTUNA_SEED) {
            throw Refusal.invalid("seed", "An Optuna sampler's seed is at most 4294967295 (2^32 - 1, NumPy's bound).");
        }
        Long seed = null;
        if (r.seed() != null && ("random".equals(algorithm) || optuna)) {
            seed = r.seed();
        } else if ("random".equals(algorithm)) {
            seed = SEEDS.nextLong() >>> 12;
        } else if (optuna) {
            seed = Integer.toUnsignedLong(SEEDS.nextInt());
        }
        if (optuna && r.parallelism() != null && r.parallelism() > MAX_OPTUNA_PARALLELISM) {
            throw Refusal.invalid(
                    "parallelism",
                    "An Optuna sweep has at most " + MAX_OPTUNA_PARALLELISM + " trials out at once (its driver follows"
                            + " each one's reports); a sampler learns only from trials that ended, so more adds little.");
        }
        int parallelism = r.parallelism() == null ? (optuna ? OPTUNA_PARALLELISM : MAX_TRIALS) : r.parallelism();
        return new Sweep.Spec(
                algorithm,
                seed,
                r.space(),
                r.args() == null ? List.of() : r.args(),
                parallelism,
                objective,
                stopping,
                r.maxFailedTrials(),
                optuna ? (r.sampler() == null ? new OptunaCatalogue.Part("TPESampler", null) : r.sampler()) : null,
                optuna ? r.pruner() : null,
                optuna ? (r.driver() == null ? driverPool : r.driver()) : null);
    }

    private static List<Map<String, Object>> configurations(SweepRequest r, Sweep.Spec spec) {
        SearchSpace space = configurationsOf(r.space());
        try {
            return "grid".equals(spec.algorithm()) ? space.grid(MAX_TRIALS) : space.random(r.trials(), spec.seed());
        } catch (IllegalArgumentException e) {
            throw Refusal.invalid(
                    "space",
                    e.getMessage().substring(0, 1).toUpperCase()
                            + e.getMessage().substring(1) + ".");
        }
    }

    /** The space parsed, or a 400 that says what is wrong with it. */
    private static SearchSpace configurationsOf(JsonNode space) {
        try {
            return SearchSpace.parse(space);
        } catch (IllegalArgumentException e) {
            throw Refusal.invalid(
                    "space",
                    e.getMessage().substring(0, 1).toUpperCase()
                            + e.getMessage().substring(1) + ".");
        }
    }

    public Uni<Sweep> get(String id) {
        String type = typeOf(id);
        return store.sweep(type, id)
                .map(reply -> {
                    if (!(reply instanceof SweepGetReply.Found found)) {
                        throw noSweep(id);
                    }
                    return view(found.sweep(), found.trials(), true);
                })
                .flatMap(this::withDriver);
    }

    /** The newest sweeps (without their trials), of one pool or all. */
    public Uni<List<Sweep>> list(String type, Integer limit) {
        int n = limit == null ? 50 : limit;
        if (n < 1 || n > 1000) {
            throw Refusal.invalid("limit", "'limit' must be between 1 and 1000.");
        }
        return pools.newestOverPools(
                type,
                n,
                t -> store.sweeps(t, n)
                        .map(hs ->
                                hs.stream().map(h -> view(h, List.of(), false)).toList())
                        .flatMap(this::withDrivers),
                Comparator.comparing(Sweep::createdAt, Comparator.nullsLast(Comparator.reverseOrder()))
                        .thenComparing(Sweep::id, Comparator.reverseOrder()));
    }

    /**
     * Adds a trial with {@code trialConfig} to an external sweep: the caller's own, or anyone's as an
     * admin. The trial runs at once when fewer than the sweep's {@code parallelism} are out, else when one ends.
     */
    public Uni<AddedTrial> addTrial(String id, JsonNode trialConfig, String key, Caller caller) {
        String type = typeOf(id);
        if (key != null && (key.isEmpty() || key.length() > MAX_KEY_LENGTH)) {
            throw Refusal.invalid(
                    "key",
                    "'key' names the trial for its driver (a retry or a restarted driver adding it again gets the same"
                            + " trial): 1 to " + MAX_KEY_LENGTH + " characters, e.g. the Optuna trial's number.");
        }
        if (trialConfig == null || !trialConfig.isObject()) {
            throw Refusal.invalid(
                    "config",
                    "'config' is required: the trial's configuration, a JSON object such as {\"lr\": 0.01}"
                            + " (its job's config and WARMPOOL_CONFIG).");
        }
        limiter.take(caller, 1);
        // the script checks the caller is the sweep's submitter (or an admin): no read of the sweep and its trials
        return store.addTrial(
                        type,
                        id,
                        store.write(trialConfig),
                        config.jobs().retention().toSeconds(),
                        key,
                        caller.name(),
                        caller.admin())
                .map(reply -> {
                    if (reply instanceof SweepAddReply.Added added) {
                        if (JobState.QUEUED.name().equals(added.state())) {
                            reconciler.nudge(); // no idle processor took it: start one now, not at the next tick
                        }
                        return new AddedTrial(
                                added.existing(),
                                new Sweep.Trial(
                                        added.jobId(),
                                        added.index(),
                                        JobState.parse(added.state()),
                                        trialConfig,
                                        null,
                                        null,
                                        null,
                                        null,
                                        null,
                                        null,
                                        null,
                                        null));
                    }
                    throw refusal(id, reply);
                });
    }

    /** A trial added, or ({@code existing}) the one added before under the same key (its config shown as asked now). */
    public record AddedTrial(boolean existing, Sweep.Trial trial) {}

    /** The longest key a driver gives a trial. */
    static final int MAX_KEY_LENGTH = 200;
    /** Most entries one append carries. */
    public static final int MAX_JOURNAL_APPEND = 1000;
    /** Most entries a sweep's journal holds. */
    public static final long MAX_JOURNAL = 1_000_000;
    /** Most bytes of entries a sweep's journal holds (64 MiB). */
    public static final long MAX_JOURNAL_BYTES = 64L << 20;

    /**
     * Appends {@code entries} (JSON objects) to an external sweep's journal, for its submitter or an
     * admin; how many entries it holds now. Its driver's study lives there (docs/sweeps.md).
     */
    public Uni<Long> appendJournal(String id, List<JsonNode> entries, String appendId, Caller caller) {
        String type = typeOf(id);
        if (entries == null || entries.isEmpty() || entries.size() > MAX_JOURNAL_APPEND) {
            throw Refusal.invalid(
                    "entries",
                    "'entries' is a list of 1 to " + MAX_JOURNAL_APPEND + " JSON objects, e.g. [{\"op_code\": 0}].");
        }
        if (appendId != null && (appendId.isEmpty() || appendId.length() > MAX_KEY_LENGTH)) {
            throw Refusal.invalid(
                    "id",
                    "'id' names the append, so that a retry of it appends nothing: 1 to " + MAX_KEY_LENGTH
                            + " characters, e.g. a UUID.");
        }
        List<String> text = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            if (entries.get(i) == null || !entries.get(i).isObject()) {
                throw Refusal.invalid("entries[" + i + "]", "Each journal entry is a JSON object.");
            }
            text.add(store.write(entries.get(i)));
        }
        return store.appendJournal(
                        type, id, caller.name(), caller.admin(), MAX_JOURNAL, MAX_JOURNAL_BYTES, appendId, text)
                .map(reply -> {
                    if (reply instanceof SweepJournalReply.Appended appended) {
                        return appended.size();
                    }
                    if (reply instanceof SweepJournalReply.Full full) {
                        throw Refusal.conflict(
                                        "journal-full",
                                        "Sweep " + id + "'s journal holds at most " + full.most() + " " + full.what()
                                                + "; this append would pass that. Start another sweep for more.")
                                .with("most", full.most());
                    }
                    throw journalRefusal(id, reply);
                });
    }

    /** A sweep's journal from entry {@code from}, at most {@code limit} entries: its submitter's or an admin's to read. */
    public Uni<Journal> readJournal(String id, long from, int limit, Caller caller) {
        String type = typeOf(id);
        if (from < 0) {
            throw Refusal.invalid("from", "'from' is the index of the first entry to read: 0 or more.");
        }
        if (limit < 1 || limit > 10_000) {
            throw Refusal.invalid("limit", "'limit' must be between 1 and 10000.");
        }
        return store.readJournal(type, id, caller.name(), caller.admin(), from, limit)
                .map(reply -> {
                    if (reply instanceof SweepJournalReply.Read read) {
                        List<JsonNode> out = new ArrayList<>(read.entries().size());
                        read.entries().forEach(e -> out.add(tree(e)));
                        return new Journal(out, from + out.size(), read.size());
                    }
                    throw journalRefusal(id, reply);
                });
    }

    private static Refusal journalRefusal(String id, SweepJournalReply reply) {
        if (reply instanceof SweepJournalReply.Forbidden f) {
            return new Refusal(
                            Refusal.Kind.FORBIDDEN,
                            "forbidden",
                            "Forbidden",
                            "Sweep " + id + " was submitted by '" + f.submittedBy()
                                    + "'; only they (and its driver) or an admin read and write its journal.")
                    .with("submittedBy", f.submittedBy());
        }
        if (reply instanceof SweepJournalReply.NotExternal) {
            return notExternal(id);
        }
        return noSweep(id);
    }

    /** A page of a journal: its entries from the index asked, the index after them, and how many it holds. */
    public record Journal(List<JsonNode> entries, long next, long size) {}

    private static Refusal notExternal(String id) {
        return Refusal.conflict(
                "sweep-not-external",
                "Sweep " + id + " draws its own configurations; trials and a journal belong to a sweep"
                        + " submitted with \"algorithm\": \"external\".");
    }

    private static Refusal refusal(String id, SweepAddReply reply) {
        if (reply instanceof SweepAddReply.Forbidden f) {
            return Access.mayNotAddTrials(id, f.submittedBy());
        }
        if (reply instanceof SweepAddReply.KeyConflict k) {
            return Refusal.conflict(
                            "trial-key-reused",
                            "Sweep " + id + "'s trial " + k.jobId() + " was added under this key with another"
                                    + " configuration; a key names one trial (a driver's study and its sweep go together).")
                    .with("trial", k.jobId());
        }
        if (reply instanceof SweepAddReply.NotExternal) {
            return notExternal(id);
        }
        if (reply instanceof SweepAddReply.Ended ended) {
            return Refusal.conflict(
                            "sweep-ended",
                            "Sweep " + id + " has ended (" + ended.state() + "); it takes no more trials.")
                    .with("state", ended.state());
        }
        if (reply instanceof SweepAddReply.Full full) {
            return Refusal.conflict(
                            "sweep-full",
                            "Sweep " + id + " has all its " + full.total()
                                    + " trials ('trials' when it was submitted); it ends when they have.")
                    .with("total", full.total());
        }
        return noSweep(id);
    }

    /** Cancels a sweep: the caller's own, or anyone's as an admin (403 otherwise, and nothing changes). */
    public Uni<Sweep> cancel(String id, Caller caller) {
        String type = typeOf(id);
        return get(id).invoke(sweep -> Access.checkMayCancel(caller, "Sweep", id, sweep.submittedBy()))
                .flatMap(s -> store.cancelSweep(
                        type,
                        id,
                        "the sweep was cancelled by " + caller.name(),
                        config.jobs().retention().toSeconds()))
                .flatMap(reply -> {
                    if (reply instanceof SweepCancelReply.NoSweep) {
                        throw noSweep(id);
                    }
                    if (reply instanceof SweepCancelReply.Ended ended) {
                        throw Refusal.conflict(
                                        "sweep-ended",
                                        "Sweep " + id + " has already ended (" + ended.state()
                                                + "); there is nothing to cancel.")
                                .with("state", ended.state());
                    }
                    return get(id);
                })
                .flatMap(s -> stopDriver(s, caller));
    }

    /** A cancelled sweep's driver job ends with it (one that has ended already is left as it is). */
    private Uni<Sweep> stopDriver(Sweep s, Caller caller) {
        if (s.driver() == null
                || s.driver().state() == null
                || s.driver().state().ended()) {
            return Uni.createFrom().item(s);
        }
        return jobs.cancel(s.driver().job(), caller, JobState.CANCELLED, "its sweep was cancelled")
                .onFailure(Refusal.class)
                .recoverWithNull()
                .flatMap(x -> withDriver(s));
    }

    private Sweep view(Map<String, String> h, List<Map<String, String>> trialFields, boolean withTrials) {
        List<Sweep.Trial> trials = new ArrayList<>();
        for (Map<String, String> t : trialFields) {
            trials.add(new Sweep.Trial(
                    t.get(JobHash.ID),
                    num(t, JobHash.TRIAL),
                    JobState.parse(t.get(JobHash.STATE)),
                    tree(t.get(JobHash.CONFIG)),
                    tree(t.get(JobHash.METRICS)),
                    tree(t.get(JobHash.PROGRESS)),
                    integer(t.get(JobHash.ATTEMPTS)),
                    blankToNull(t.get(JobHash.PROCESSOR)),
                    Timestamps.iso(t.get(JobHash.SUBMITTED_AT)),
                    Timestamps.iso(t.get(JobHash.STARTED_AT)),
                    Timestamps.iso(t.get(JobHash.FINISHED_AT)),
                    JobState.SUCCEEDED.name().equals(t.get(JobHash.STATE)) ? null : blankToNull(t.get(JobHash.ERROR))));
        }
        Sweep.Best best = null;
        String bestId = blankToNull(h.get(SweepHash.BEST_TRIAL));
        Double bestValue = StoredJson.finiteNumber(h.get(SweepHash.BEST_VALUE)); // an older build may have stored 'nan'
        if (bestId != null && bestValue != null) {
            Optional<Sweep.Trial> trial =
                    trials.stream().filter(t -> bestId.equals(t.id())).findFirst();
            best = new Sweep.Best(
                    bestId,
                    bestValue,
                    trial.map(Sweep.Trial::config).orElse(null),
                    trial.map(Sweep.Trial::metrics).orElse(null));
        }
        Sweep.Progress progress = new Sweep.Progress(
                num(h, SweepHash.DONE),
                num(h, SweepHash.TOTAL),
                num(h, SweepHash.ACTIVE),
                num(h, SweepHash.SUCCEEDED),
                num(h, SweepHash.FAILED),
                num(h, SweepHash.CANCELLED),
                num(h, SweepHash.EARLY_STOPPED));
        Sweep.Spec spec = read(h.get(SweepHash.SPEC), Sweep.Spec.class);
        return new Sweep(
                h.get(SweepHash.ID),
                h.get(SweepHash.TYPE),
                h.get(SweepHash.STATE),
                spec,
                progress,
                best,
                Timestamps.iso(h.get(SweepHash.CREATED_AT)),
                Timestamps.iso(h.get(SweepHash.FINISHED_AT)),
                blankToNull(h.get(SweepHash.ERROR)),
                withTrials ? trials : null,
                blankToNull(h.get(SweepHash.SUBMITTED_BY)),
                warnings(h.get(SweepHash.WARNINGS)),
                blankToNull(h.get(SweepHash.TENANT)),
                new Sweep.Cost(
                        longNum(h, SweepHash.BUSY_MS) / 1000.0,
                        num(h, SweepHash.DONE),
                        num(h, SweepHash.COLD_STARTS),
                        longNum(h, SweepHash.IDLE_MS) / 1000.0,
                        null),
                blankToNull(h.get(SweepHash.DRIVER)) == null
                        ? null
                        : new Sweep.Driver(h.get(SweepHash.DRIVER), null, null));
    }

    /** The sweeps, each with its driver as it is (those without one as they are), in order. */
    private Uni<List<Sweep>> withDrivers(List<Sweep> sweeps) {
        if (sweeps.stream().noneMatch(x -> x.driver() != null)) {
            return Uni.createFrom().item(sweeps);
        }
        return Uni.join()
                .all(sweeps.stream()
                        .map(x -> x.driver() == null
                                ? Uni.createFrom().item(x)
                                : withDriver(x).map(y -> y.withTrials(null)))
                        .toList())
                .andFailFast();
    }

    /** Seconds a job has run: started to its end, or to now while it runs; null before it started. */
    static Double ranFor(Job job) {
        if (job.startedAt() == null) {
            return null;
        }
        Instant start = Instant.parse(job.startedAt());
        Instant end = job.finishedAt() == null ? Instant.now() : Instant.parse(job.finishedAt());
        return Math.max(0, Duration.between(start, end).toMillis()) / 1000.0;
    }

    /** The sweep with its driver job's state and error as they are now (a driver that is gone: as it was). */
    private Uni<Sweep> withDriver(Sweep s) {
        if (s.driver() == null) {
            return Uni.createFrom().item(s);
        }
        return jobs.get(s.driver().job())
                .map(job -> s.withDriver(new Sweep.Driver(s.driver().job(), job.state(), job.error()), ranFor(job)))
                .onFailure(Refusal.class)
                .recoverWithItem(s);
    }

    /**
     * Ends sweep {@code sweepId} of pool {@code type} when its driver job {@code driverJob} has ended
     * (failed for good, gave up, was cancelled) or is gone (expired, or never stored: the manager
     * stopped between the sweep and its driver), since the sweep would wait for trials nobody adds.
     * True when this ended it. {@link DriverWatch} calls it for every sweep a driver feeds.
     */
    public Uni<Boolean> endIfDriverEnded(String type, String sweepId, String driverJob) {
        return Uni.createFrom()
                .deferred(() -> jobs.get(driverJob))
                .map(job -> job.state() == null || !job.state().ended()
                        ? null
                        : "its driver job " + job.id() + " ended " + job.state()
                                + (job.error() == null ? "" : ": " + job.error()))
                .onFailure(Refusal.class)
                // gone: unless it is being stored (the sweep is stored first, its driver job a moment later)
                .recoverWithItem(() -> System.currentTimeMillis() - Ids.millisOfJob(driverJob) < DRIVER_STORE_GRACE_MS
                        ? null
                        : "its driver job " + driverJob + " is gone")
                .flatMap(why -> why == null
                        ? Uni.createFrom().item(false)
                        : store.cancelSweep(
                                        type,
                                        sweepId,
                                        why,
                                        config.jobs().retention().toSeconds())
                                .map(reply -> reply instanceof SweepCancelReply.Cancelled));
    }

    /** The stored warnings (a JSON array of sentences), or null when there are none. */
    private List<String> warnings(String stored) {
        JsonNode tree = StoredJson.tree(json, stored);
        if (tree == null) {
            return null;
        }
        List<String> out = new ArrayList<>();
        (tree.isArray() ? tree : json.createArrayNode().add(tree)).forEach(w -> out.add(w.asText()));
        return out.isEmpty() ? null : out;
    }

    private static long longNum(Map<String, String> h, String field) {
        try {
            String s = h.get(field);
            return s == null || s.isEmpty() ? 0 : Long.parseLong(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static int num(Map<String, String> h, String field) {
        Integer n = integer(h.get(field));
        return n == null ? 0 : n;
    }

    /** A stored count; a read shows what it can, so one unreadable field does not fail the sweep's page. */
    private static Integer integer(String s) {
        try {
            return s == null || s.isEmpty() ? null : Integer.valueOf(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String blankToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    private JsonNode tree(String s) {
        return StoredJson.tree(json, s);
    }

    private <T> T read(String s, Class<T> type) {
        try {
            return json.readValue(s, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored sweep field is not JSON: " + s, e);
        }
    }

    static String typeOf(String id) {
        return Optional.ofNullable(Ids.typeOfSweep(id)).orElseThrow(() -> noSweep(id));
    }

    static Refusal noSweep(String id) {
        return Refusal.noSweep(id);
    }
}
