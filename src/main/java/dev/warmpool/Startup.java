package dev.warmpool;

import dev.warmpool.auth.StaticTokens;
import dev.warmpool.config.ConfigCheck;
import dev.warmpool.config.ConfigPools;
import dev.warmpool.config.WarmpoolConfig;
import dev.warmpool.reconcile.Reconciler;
import dev.warmpool.runtime.ProcessorRuntime;
import dev.warmpool.service.PoolService;
import dev.warmpool.service.Refusal;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.List;
import org.jboss.logging.Logger;

/** Checks the settings at start-up (saying what to fix), then creates the pools declared in config. */
@ApplicationScoped
public class Startup {
    private static final Logger LOG = Logger.getLogger(Startup.class);

    void onStart(
            @Observes StartupEvent ev,
            WarmpoolConfig config,
            PoolService pools,
            Reconciler reconciler,
            ProcessorRuntime runtime,
            StaticTokens tokens,
            ConfigPools configPools,
            @org.eclipse.microprofile.config.inject.ConfigProperty(name = "quarkus.http.host") String host) {
        List<String> problems = ConfigCheck.check(config);
        problems.addAll(configPools.problems());
        if (!config.auth().enabled() && !ConfigCheck.loopback(host)) {
            problems.add("warmpool.auth.enabled=false lets anyone who reaches the port run any program, so the manager "
                    + "listens on 127.0.0.1 alone then; quarkus.http.host=" + host + " is not loopback: turn "
                    + "authentication on, or bind to 127.0.0.1");
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("warmpool cannot start:\n  - " + String.join("\n  - ", problems));
        }
        // made here, on the main thread, rather than by whatever first needs them: making the docker
        // runtime asks the engine (blocking), which must never happen on the event loop
        runtime.leads();
        reconciler.queuedJobs();
        if (config.auth().enabled()) {
            tokens.init();
        } else {
            LOG.warn("AUTHENTICATION IS OFF (warmpool.auth.enabled=false): every connection of this user ("
                    + System.getProperty("user.name") + ") or root is an admin and may run any program as this user;"
                    + " other users' and jobs' connections get 403. Listening on " + host + " only.");
        }
        configPools
                .leftOut()
                .forEach(type -> LOG.warnf(
                        "pool %s from config is left out: processors on the docker "
                                + "runtime are containers, and it names no image (set warmpool.pools.%s.image)",
                        type, type));
        configPools.specs().forEach((type, spec) -> {
            try {
                pools.put(type, spec).await().atMost(Duration.ofSeconds(30));
            } catch (Refusal r) {
                throw new IllegalStateException("warmpool cannot start:\n  - pool " + type + " from config ("
                        + "warmpool.pools." + type + ".*, fields as in PUT /pools/{type}): " + r.getMessage());
            }
            LOG.infof(
                    "pool %s from config: %s (minIdle %d, maxSize %d)",
                    type, spec.command(), spec.minIdle(), spec.maxSize());
        });
        reconciler.nudge();
        runtime.prepare();
    }
}
