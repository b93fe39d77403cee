package dev.warmpool.service;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.pool.Job;
import dev.warmpool.pool.PoolSpec;
import dev.warmpool.protocol.Fields.JobHash;
import dev.warmpool.store.PoolStore;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Server-side sweeps' drivers ({@code "algorithm": "optuna"}, docs/sweeps.md): the pool they run on
 * (one the sweep names, or the manager's own, made on the local runtime on first use: the Python
 * with Optuna running {@code python3 -m warmpool.driver} from the client's package), and the driver
 * job itself, which carries its sweep-scoped token for its agent to hand it with the way to the API.
 */
@ApplicationScoped
public class SweepDrivers {
    /** How long a driver may run: as long as its study; a week bounds one that hangs. */
    static final int DRIVER_TIMEOUT_SECONDS = 604_800;
    /** A driver that died with its processor is run again (it takes its study up from the journal). */
    static final int DRIVER_ATTEMPTS = 3;

    private final PoolStore store;
    private final PoolService pools;
    private final JobService jobs;
    private final WarmpoolConfig config;

    private final Access access;

    public SweepDrivers(PoolStore store, PoolService pools, JobService jobs, WarmpoolConfig config) {
        this.access = new Access(store);
        this.store = store;
        this.pools = pools;
        this.jobs = jobs;
        this.config = config;
    }

    /**
     * The pool a sweep's driver runs on: {@code named}, which must exist and admit {@code caller} (the
     * driver job is the caller's, and that pool's command gets the sweep's token), else the manager's,
     * made when missing.
     */
    Uni<String> pool(String named, Caller caller) {
        String type = named != null ? named : config.sweeps().driverPool();
        return store.spec(type).flatMap(spec -> {
            if (spec.isPresent() && named != null) {
                return access.check(type, caller, Collections.singletonList(Map.of()), List.of("driver"))
                        .replaceWith(type);
            }
            if (spec.isPresent()) {
                return Uni.createFrom().item(type);
            }
            if (named != null) {
                throw Refusal.invalid(
                        "driver",
                        "There is no pool '" + UserInput.shown(named) + "' to run the sweep's driver on; leave 'driver'"
                                + " out for the manager's own ("
                                + config.sweeps().driverPool() + "), or PUT that pool"
                                + " first: a Python with Optuna running `python3 -m warmpool.driver`.");
            }
            return Uni.createFrom()
                    .item(this::ownPoolSpec)
                    .runSubscriptionOn(Infrastructure.getDefaultWorkerPool()) // looks at the disk
                    .flatMap(s -> pools.put(type, s))
                    .replaceWith(type);
        });
    }

    private PoolSpec ownPoolSpec() {
        Path client = config.sweeps()
                .driverPythonPath()
                .or(() -> Optional.of(Path.of("clients", "python")))
                .map(Path::toAbsolutePath)
                .filter(p -> Files.isRegularFile(p.resolve("warmpool").resolve("driver.py")))
                .orElseThrow(
                        () -> Refusal.conflict(
                                "no-sweep-driver",
                                "The manager has no sweep driver to run: the Python client (clients/python, with"
                                        + " warmpool/driver.py) is not under its working dir; set"
                                        + " warmpool.sweeps.driver-python-path to it, or name a pool of your own in 'driver'."));
        String python = config.sweeps()
                .driverPython()
                .orElse(Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3");
        return PoolSpec.builder()
                .command(List.of(python, "-m", "warmpool.driver"))
                .minIdle(0)
                .maxSize(config.sweeps().driverPoolSize())
                .idleTimeoutSeconds(300)
                .env(Map.of("PYTHONPATH", client.toString()))
                .maxQueued(1000)
                .runtime("local")
                .build();
    }

    /**
     * Submits the driver job {@code jobId} (the id its sweep names) of sweep {@code sweepId} to {@code pool}
     * as the sweep's submitter: its config is the study ({@code study}), its hash holds {@code token} for its agent.
     */
    Uni<Job> start(String pool, String jobId, String sweepId, JsonNode study, String token, Caller caller) {
        JobRequest r = new JobRequest(pool, List.of(), study, Map.of(), 0, DRIVER_TIMEOUT_SECONDS, DRIVER_ATTEMPTS);
        return jobs.submitDriver(r, jobId, caller, Map.of(JobHash.API_TOKEN, token, JobHash.DRIVER_OF, sweepId));
    }
}
