package dev.warmpool.reconcile;

import dev.warmpool.config.ConfigPools;
import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.config.WarmthParams;
import dev.warmpool.metrics.PoolMetrics;
import dev.warmpool.policy.PoolSnapshot;
import dev.warmpool.policy.SizingPolicy;
import dev.warmpool.pool.Ids;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.protocol.script.LostReply;
import dev.warmpool.runtime.ProcessorRuntime;
import dev.warmpool.service.ReconcilerPort;
import dev.warmpool.store.AgentUsers;
import dev.warmpool.store.PoolStore;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * Brings every pool to the size its load asks for (see {@link SizingPolicy}) and repairs what a
 * crash or a lost processor left: level-triggered, so every pass reads all state afresh and a
 * pass that finds nothing to do changes nothing. One manager at a time holds the Redis lock.
 * Passes run on one worker thread of their own: they block on the runtime (process spawn).
 */
@ApplicationScoped
public class Reconciler implements ReconcilerPort {
    private static final Logger LOG = Logger.getLogger(Reconciler.class);
    private static final Duration CALL = Duration.ofSeconds(10);
    private static final int SNAPSHOTS_AT_ONCE = 32;

    private final PoolStore store;
    private final ProcessorRuntime runtime;
    private final PoolMetrics metrics;
    private final WarmpoolConfig config;
    private final SizingPolicy.Timing timing;
    private final String holder = "manager-" + Ids.newProcessorId();
    /**
     * Least time between the end of one pass and the start of the next. A burst of submits that
     * find no idle processor asks for a pass each; one pass per 200 ms serves them all, where a
     * pass per submit would spend a core reading the runtime again and again.
     */
    static final long MIN_GAP_MILLIS = 200;

    private final ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "warmpool-reconciler");
        t.setDaemon(true);
        return t;
    });
    private final AtomicBoolean pending = new AtomicBoolean();
    /** When a pass last failed (manager clock): heartbeats missed around then do not count. */
    private volatile long lastFailure;

    private volatile long lastPassEnd;
    private volatile long passStartedAt;
    private volatile Thread passThread;
    private static final long STUCK_MILLIS = 30_000;
    /** Pool names whose pool hash this manager found missing, and since when (manager clock). */
    private final Map<String, Long> missingSince = new ConcurrentHashMap<>();

    static final long MISSING_GRACE_MILLIS = 10_000;
    /** Processes the runtime has and Redis does not, and since when (manager clock). */
    private final Map<String, Long> unknownSince = new HashMap<>();
    /** Jobs queued over all pools at the last pass (the soft global bound on submits). */
    private volatile long queuedJobs;

    private final AgentUsers agentUsers;
    private final ConfigPools configPools;
    private final Starts starts;
    private final Overdues overdues;

    public Reconciler(
            PoolStore store,
            ProcessorRuntime runtime,
            WarmpoolConfig config,
            AgentUsers agentUsers,
            PoolMetrics metrics,
            ConfigPools configPools) {
        this.agentUsers = agentUsers;
        this.configPools = configPools;
        this.metrics = metrics;
        this.store = store;
        this.runtime = runtime;
        this.config = config;
        this.timing = new SizingPolicy.Timing(
                config.heartbeat().timeout().toMillis(),
                config.reconcile().startTimeout().toMillis(),
                config.reconcile().drainTimeout().toMillis(),
                config.reconcile()
                        .orphanGrace()
                        .orElse(config.heartbeat().timeout())
                        .toMillis(),
                WarmthParams.of(config));
        this.starts = new Starts(store, runtime, new DeviceGate(runtime), retentionSeconds());
        this.overdues = new Overdues(
                store,
                runtime,
                new Deadlines.Timing(
                        config.reconcile().timeoutGrace().toMillis(),
                        config.reconcile().startTimeout().toMillis()),
                retentionSeconds(),
                this::nudge);
        runtime.onChange(this::nudge);
        runtime.onGone(new Exits(store, retentionSeconds(), worker, this::nudge)::gone);
    }

    @Scheduled(
            every = "${warmpool.reconcile.interval}",
            delayed = "1s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void everyInterval() {
        Thread t = passThread;
        long started = passStartedAt;
        if (t != null && started > 0 && System.currentTimeMillis() - started > STUCK_MILLIS) {
            // a pass should take milliseconds; say where one hangs, so it can be found and fixed
            RuntimeException where = new RuntimeException(
                    "reconcile pass running for " + (System.currentTimeMillis() - started) / 1000 + " s");
            where.setStackTrace(t.getStackTrace());
            LOG.warn(where.getMessage(), where);
        }
        // the periodic pass runs on the scheduler's own (blocking) thread, so it does not depend on
        // the nudge executor: whatever becomes of a nudge, the next tick reconciles
        runPass();
    }

    /** Asks for a pass soon, off the caller's thread; nudges that come while one waits are merged. */
    @Override
    public void nudge() {
        if (pending.compareAndSet(false, true)) {
            long wait = Math.max(0, lastPassEnd + MIN_GAP_MILLIS - System.currentTimeMillis());
            worker.schedule(
                    () -> {
                        pending.set(false);
                        runPass();
                    },
                    wait,
                    TimeUnit.MILLISECONDS);
        }
    }

    private void runPass() {
        passThread = Thread.currentThread();
        passStartedAt = System.currentTimeMillis();
        long t0 = System.nanoTime();
        try {
            Report report = reconcileOnce();
            if (report.ran()) {
                metrics.pass(System.nanoTime() - t0);
            }
            if (report.ran() && (report.started() + report.retired() + report.lost() + report.orphansStopped() > 0)) {
                LOG.debugf("reconcile pass: %s", report);
            }
        } catch (RuntimeException | Error e) {
            // the next pass starts from what is there, so it retries whatever failed
            lastFailure = System.currentTimeMillis();
            LOG.warnf("reconcile pass failed: %s", e.getMessage());
        } finally {
            passStartedAt = 0;
            lastPassEnd = System.currentTimeMillis();
        }
    }

    /**
     * Pool {@code type} was created or changed, or lost a processor: what it lacks is started at
     * once on the worker ({@link #startNow}), then a full pass follows as for any nudge.
     */
    @Override
    public void nudge(String type) {
        try {
            worker.execute(() -> {
                try {
                    startNow(type);
                } catch (RuntimeException e) {
                    LOG.warnf(
                            "could not start processors of pool %s now (the next pass retries): %s",
                            type, e.getMessage());
                }
            });
        } catch (RejectedExecutionException e) {
            return; // the manager is stopping
        }
        nudge();
    }

    /**
     * Starts what pool {@code type} lacks now ({@link SizingPolicy#startNow}) from its snapshot
     * and the runtime's processes, without the rest of a full pass (every pool's snapshot, Redis's
     * clock, orphans) nor its least gap after the last pass: a pool just created, or one whose
     * processor was just lost, gets its processor at once. One pass at a time: it holds the full
     * pass's monitor and Redis lock, and spawn.lua refuses past maxSize; losses, retirements and
     * orphans stay the full pass's. Blocks: never on the event loop.
     */
    public synchronized int startNow(String type) {
        if (!runtime.leads() || !store.tryLock(holder, lockMillis()).await().atMost(CALL)) {
            return 0;
        }
        try {
            Optional<PoolSnapshot> s = store.snapshot(type).await().atMost(CALL);
            if (s.isEmpty()) {
                return 0;
            }
            Set<String> running = runtime.list().stream()
                    .filter(r -> r.type().equals(type))
                    .map(ProcessorRuntime.Running::processorId)
                    .collect(Collectors.toSet());
            int wanted = SizingPolicy.startNow(s.get(), timing, running);
            return wanted == 0 ? 0 : starts.start(s.get(), wanted, new HashSet<>());
        } finally {
            store.unlock(holder).await().atMost(CALL);
        }
    }

    private long lockMillis() {
        return Math.max(3 * config.reconcile().interval().toMillis(), 15_000);
    }

    /** One pass, on the calling thread (it blocks: never call it from the event loop). */
    @Override
    public synchronized Report reconcileOnce() {
        if (!runtime.leads() || !store.tryLock(holder, lockMillis()).await().atMost(CALL)) {
            return Report.SKIPPED;
        }
        try {
            return pass();
        } finally {
            store.unlock(holder).await().atMost(CALL);
        }
    }

    private Report pass() {
        List<ProcessorRuntime.Running> running = runtime.list();
        Set<String> known = new HashSet<>();
        int started = 0, retired = 0, lost = 0, removed = 0;
        long heartbeatsSince = heartbeatsSince();
        long queued = 0;
        List<String> types = typesWithConfigPools();
        Map<String, Optional<PoolSnapshot>> snapshots = snapshots(types);
        for (String type : types) {
            Optional<PoolSnapshot> snapshot = snapshots.get(type);
            if (snapshot.isEmpty()) {
                // a name without a pool: a crash between the two steps of a create, or a create
                // under way right now (the name is added first). Only a name that stays without
                // its pool past the grace period is dropped.
                long since = missingSince.computeIfAbsent(type, t -> System.currentTimeMillis());
                if (System.currentTimeMillis() - since >= MISSING_GRACE_MILLIS) {
                    store.forget(type).await().atMost(CALL);
                    missingSince.remove(type);
                }
                continue;
            }
            missingSince.remove(type);
            PoolSnapshot s = snapshot.get();
            metrics.saw(s);
            queued += s.queued();
            Set<String> ofPool = running.stream()
                    .filter(r -> r.type().equals(type))
                    .map(ProcessorRuntime.Running::processorId)
                    .collect(Collectors.toSet());
            SizingPolicy.Plan plan = SizingPolicy.plan(s, timing, ofPool, heartbeatsSince);
            s.processors().forEach(p -> known.add(type + "/" + p.id()));
            if (agentUsers.enabled() && !s.processors().isEmpty()) {
                // level-triggered: a Redis restarted without its ACLs gets the pool's agent user back
                // (and a password due for rotation is rotated) before an agent has to reconnect
                agentUsers.ensure(type).await().atMost(CALL);
            }
            lost += applyLost(type, plan);
            lost += overdues.apply(s);
            retired += applyRetire(type, plan);
            started += starts.start(s, plan.start(), known);
            if (s.draining()
                    && store.collectPool(type, retentionSeconds()).await().atMost(CALL)) {
                LOG.infof("pool %s drained and removed", type);
                runtime.poolRemoved(type);
                metrics.removed(type);
                agentUsers.remove(type).await().atMost(CALL);
                removed++;
            }
        }
        queuedJobs = queued;
        int orphans = stopOrphans(running, known);
        return new Report(true, started, retired, lost, orphans, removed);
    }

    /**
     * Every pool's snapshot, asked for {@value #SNAPSHOTS_AT_ONCE} pools at a time rather than one
     * after another: each is one script, and the pools' plans only act on their own pool (every
     * action re-checks in its script), so a snapshot a few milliseconds older changes nothing.
     */
    private Map<String, Optional<PoolSnapshot>> snapshots(List<String> types) {
        Map<String, Optional<PoolSnapshot>> out = new HashMap<>();
        for (int from = 0; from < types.size(); from += SNAPSHOTS_AT_ONCE) {
            List<String> chunk = types.subList(from, Math.min(types.size(), from + SNAPSHOTS_AT_ONCE));
            List<Optional<PoolSnapshot>> got = Uni.join()
                    .all(chunk.stream().map(store::snapshot).toList())
                    .andFailFast()
                    .await()
                    .atMost(CALL);
            for (int i = 0; i < chunk.size(); i++) {
                out.put(chunk.get(i), got.get(i));
            }
        }
        return out;
    }

    private int applyLost(String type, SizingPolicy.Plan plan) {
        for (SizingPolicy.Lost l : plan.lost()) {
            runtime.stop(type, l.id());
            if (store.lost(type, l.id(), l.heartbeatDeadline(), l.reason(), retentionSeconds())
                            .await()
                            .atMost(CALL)
                    instanceof LostReply.Lost lost) {
                LOG.warnf(
                        "%s; %s",
                        l.reason(),
                        lost.jobId().isEmpty()
                                ? "it held no job"
                                : "its job " + lost.jobId() + " is now " + lost.jobState());
            }
        }
        return plan.lost().size();
    }

    private int applyRetire(String type, SizingPolicy.Plan plan) {
        int n = 0;
        for (SizingPolicy.Retire r : plan.retire()) {
            if (store.retire(type, r.id(), r.idleSinceAtMost()).await().atMost(CALL)) {
                LOG.infof("retiring idle processor %s of pool %s", r.id(), type);
                n++;
            }
        }
        return n;
    }

    /**
     * Stops processes that Redis has not known for a heartbeat timeout: long enough for an agent
     * to register again after Redis lost its data, short enough that a leak does not last.
     */
    private int stopOrphans(List<ProcessorRuntime.Running> running, Set<String> known) {
        long now = System.currentTimeMillis();
        Set<String> seen = new HashSet<>();
        int n = 0;
        for (ProcessorRuntime.Running r : running) {
            String name = r.type() + "/" + r.processorId();
            if (known.contains(name)) {
                continue;
            }
            seen.add(name);
            long since = unknownSince.computeIfAbsent(name, x -> now);
            if (now - since >= timing.orphanGrace() && now - r.startedMillis() >= timing.orphanGrace()) {
                LOG.infof("stopping orphan processor %s of pool %s", r.processorId(), r.type());
                runtime.stop(r.type(), r.processorId());
                n++;
            }
        }
        unknownSince.keySet().retainAll(seen);
        return n;
    }

    /** Redis time since which heartbeats count: not before Redis started, nor before our last failure. */
    private long heartbeatsSince() {
        PoolStore.Clock clock = store.clock().await().atMost(CALL);
        long sinceFailure = clock.now() - (System.currentTimeMillis() - lastFailure);
        return Math.max(clock.startedAt(), lastFailure == 0 ? 0 : sinceFailure);
    }

    /** The pools in Redis, after re-creating any pool declared in config that Redis has lost. */
    private List<String> typesWithConfigPools() {
        List<String> types = store.types().await().atMost(CALL);
        for (Map.Entry<String, PoolSpec> e : configPools.specs().entrySet()) {
            if (!types.contains(e.getKey())) {
                LOG.warnf("pool %s from config is missing in Redis; creating it again", e.getKey());
                store.putPool(e.getKey(), e.getValue()).await().atMost(CALL);
            }
        }
        return store.types().await().atMost(CALL);
    }

    private long retentionSeconds() {
        return config.jobs().retention().toSeconds();
    }

    /** Jobs queued over all pools, as the last pass counted them. */
    @Override
    public long queuedJobs() {
        return queuedJobs;
    }

    void onStop(@Observes ShutdownEvent ev) {
        worker.shutdownNow();
    }
}
