package dev.warmpool.reconcile;

import dev.warmpool.policy.PoolSnapshot;
import dev.warmpool.pool.Ids;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.protocol.script.SpawnGangReply;
import dev.warmpool.runtime.ProcessorRuntime;
import dev.warmpool.runtime.Runtimes;
import dev.warmpool.store.PoolStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Starts processors, or in a gang pool whole gangs (each member its own agent or pod, ids
 * {@code <gang>-<n>}), recorded in Redis first so that two managers (or a full pass and a pool's
 * own pass) cannot overshoot {@code maxSize}. A member that cannot start is given up for lost,
 * which breaks its gang: it drains, and the next pass starts a new one.
 */
final class Starts {
    private static final Logger LOG = Logger.getLogger(Starts.class);
    private static final Duration CALL = Duration.ofSeconds(10);

    private final PoolStore store;
    private final ProcessorRuntime runtime;
    private final DeviceGate devices;
    private final long retentionSeconds;
    /** The pools told that this manager lacks their runtime. */
    private final Set<String> missing = ConcurrentHashMap.newKeySet();

    Starts(PoolStore store, ProcessorRuntime runtime, DeviceGate devices, long retentionSeconds) {
        this.store = store;
        this.runtime = runtime;
        this.devices = devices;
        this.retentionSeconds = retentionSeconds;
    }

    /** Starts up to {@code wanted} processors (gangs) of pool {@code s}; their names go into {@code known}. */
    int start(PoolSnapshot s, int wanted, Set<String> known) {
        String type = s.type();
        List<PoolSpec.Member> members = s.spec().members();
        int n = 0;
        int allowed = devices.allow(s, wanted);
        for (int i = 0; i < allowed; i++) {
            String id = Ids.newProcessorId();
            List<String> ids = new ArrayList<>();
            List<SpawnGangReply.Member> gang = new ArrayList<>();
            for (int m = 0; m < members.size(); m++) {
                ids.add(id + "-" + m);
                gang.add(new SpawnGangReply.Member(
                        id + "-" + m, members.get(m).role(), members.get(m).index()));
            }
            boolean recorded = s.spec().isGang()
                    ? store.spawnGang(type, id, gang).await().atMost(CALL)
                    : store.spawn(type, id).await().atMost(CALL);
            if (!recorded) {
                break; // full or draining: another pass or manager got there first
            }
            if (!s.spec().isGang()) {
                ids.add(id);
            }
            boolean all = true;
            for (String pid : ids) {
                known.add(type + "/" + pid);
                try {
                    runtime.start(type, pid, s.spec());
                } catch (Runtimes.Missing e) {
                    all = false;
                    // every pass tries again (the manager may be given the runtime): said once, kept as startError
                    if (missing.add(type)) {
                        LOG.warn(e.getMessage());
                    }
                    store.lost(type, pid, Long.MAX_VALUE, e.getMessage(), retentionSeconds)
                            .await()
                            .atMost(CALL);
                } catch (RuntimeException e) {
                    all = false;
                    LOG.errorf(e, "could not start processor %s of pool %s", pid, type);
                    store.lost(type, pid, Long.MAX_VALUE, "could not start: " + e.getMessage(), retentionSeconds)
                            .await()
                            .atMost(CALL);
                }
            }
            if (all) {
                n++;
            }
        }
        return n;
    }
}
