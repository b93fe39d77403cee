package dev.warmpool.config;

import dev.warmpool.api.PoolRequest;
import dev.warmpool.reconcile.Reconciler;
import dev.warmpool.service.PoolService;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jboss.logging.Logger;

/** Checks the settings at start-up (saying what to fix), then creates the pools declared in config. */
@ApplicationScoped
public class Startup {
    private static final Logger LOG = Logger.getLogger(Startup.class);

    void onStart(@Observes StartupEvent ev, WarmpoolConfig config, PoolService pools, Reconciler reconciler,
            dev.warmpool.runtime.ProcessorRuntime runtime, dev.warmpool.auth.StaticTokens tokens,
            @org.eclipse.microprofile.config.inject.ConfigProperty(name = "quarkus.http.host") String host) {
        List<String> problems = check(config);
        if (!config.auth().enabled() && !loopback(host)) {
            problems.add("warmpool.auth.enabled=false lets anyone who reaches the port run any program, so the manager "
                    + "listens on 127.0.0.1 alone then; quarkus.http.host=" + host + " is not loopback: turn "
                    + "authentication on, or bind to 127.0.0.1");
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("warmpool cannot start:\n  - " + String.join("\n  - ", problems));
        }
        if (config.auth().enabled()) {
            tokens.init();
        } else {
            LOG.warn("AUTHENTICATION IS OFF (warmpool.auth.enabled=false): every caller on this machine is an admin "
                    + "and may run any program as this user. Listening on " + host + " only.");
        }
        ConfigPools.requests(config).forEach((type, request) -> {
            pools.put(type, request).await().atMost(Duration.ofSeconds(30));
            LOG.infof("pool %s from config: %s (minIdle %d, maxSize %d)", type, request.command(), request.minIdle(),
                    request.maxSize());
        });
        reconciler.nudge();
        runtime.prepare();
    }

    /** Whether {@code host} is reachable from this machine only. */
    public static boolean loopback(String host) {
        return host.equals("localhost") || host.startsWith("127.") || host.equals("::1") || host.equals("[::1]");
    }

    static List<String> check(WarmpoolConfig c) {
        List<String> problems = new ArrayList<>();
        if (!List.of("local", "kubernetes").contains(c.runtime().type())) {
            problems.add("warmpool.runtime.type=" + c.runtime().type() + " is not supported: use local or kubernetes");
        }
        positive(problems, "warmpool.reconcile.interval", c.reconcile().interval());
        positive(problems, "warmpool.heartbeat.interval", c.heartbeat().interval());
        positive(problems, "warmpool.jobs.retention", c.jobs().retention());
        if (c.heartbeat().timeout().compareTo(c.heartbeat().interval().multipliedBy(2)) < 0) {
            problems.add("warmpool.heartbeat.timeout (" + c.heartbeat().timeout() + ") must be at least twice "
                    + "warmpool.heartbeat.interval (" + c.heartbeat().interval() + "), or a single late heartbeat loses a processor");
        }
        if (c.jobs().defaultTimeoutSeconds() < 1) {
            problems.add("warmpool.jobs.default-timeout-seconds must be 1 or more");
        }
        if (c.jobs().defaultMaxAttempts() < 1) {
            problems.add("warmpool.jobs.default-max-attempts must be 1 or more");
        }
        c.pools().forEach((type, p) -> {
            if (p.command().isEmpty()) {
                problems.add("warmpool.pools.\"" + type + "\".command must name the program to run");
            }
            if (p.minIdle() > p.maxSize()) {
                problems.add("warmpool.pools.\"" + type + "\".min-idle must not exceed max-size");
            }
        });
        return problems;
    }

    private static void positive(List<String> problems, String name, Duration d) {
        if (d.isNegative() || d.isZero()) {
            problems.add(name + " must be positive, e.g. 5s");
        }
    }
}
