package dev.warmpool.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The settings' checks at start-up: each problem a sentence that says what to fix. */
public final class ConfigCheck {
    private ConfigCheck() {}

    /** Whether {@code host} is reachable from this machine only. */
    public static boolean loopback(String host) {
        return host.equals("localhost") || host.startsWith("127.") || host.equals("::1") || host.equals("[::1]");
    }

    public static List<String> check(WarmpoolConfig c) {
        List<String> problems = new ArrayList<>();
        if (!List.of("local", "docker", "kubernetes").contains(c.runtime().type())) {
            problems.add("warmpool.runtime.type=" + c.runtime().type()
                    + " is not supported: use local, docker or kubernetes");
        }
        c.runtime()
                .docker()
                .host()
                .filter(h -> !h.matches("(unix|tcp|npipe)://.+"))
                .ifPresent(h -> problems.add("warmpool.runtime.docker.host=" + h
                        + " is not a Docker API address: use unix:///var/run/docker.sock, "
                        + "unix:///run/podman/podman.sock or tcp://HOST:PORT"));
        positive(problems, "warmpool.reconcile.interval", c.reconcile().interval());
        positive(problems, "warmpool.sweeps.driver-check", c.sweeps().driverCheck());
        positive(problems, "warmpool.heartbeat.interval", c.heartbeat().interval());
        positive(problems, "warmpool.jobs.retention", c.jobs().retention());
        positive(problems, "warmpool.reconcile.timeout-grace", c.reconcile().timeoutGrace());
        if (c.heartbeat().timeout().compareTo(c.heartbeat().interval().multipliedBy(2)) < 0) {
            problems.add("warmpool.heartbeat.timeout (" + c.heartbeat().timeout() + ") must be at least twice "
                    + "warmpool.heartbeat.interval (" + c.heartbeat().interval()
                    + "), or a single late heartbeat loses a processor");
        }
        if (c.jobs().defaultTimeoutSeconds() < 1) {
            problems.add("warmpool.jobs.default-timeout-seconds must be 1 or more");
        }
        if (c.jobs().defaultMaxAttempts() < 1) {
            problems.add("warmpool.jobs.default-max-attempts must be 1 or more");
        }
        return problems;
    }

    private static void positive(List<String> problems, String name, Duration d) {
        if (d.isNegative() || d.isZero()) {
            problems.add(name + " must be positive, e.g. 5s");
        }
    }
}
