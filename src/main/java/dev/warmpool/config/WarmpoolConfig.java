package dev.warmpool.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** All of warmpool's settings, under {@code warmpool.*}; checked at start-up by {@link ConfigCheck}. */
@ConfigMapping(prefix = "warmpool")
public interface WarmpoolConfig {

    // the pools declared under warmpool.pools are read by name into their PoolSpec: ConfigPools

    Reconcile reconcile();

    Heartbeat heartbeat();

    Jobs jobs();

    Runtime runtime();

    Events events();

    AuthConfig auth();

    Policy policy();

    Limits limits();

    ConnectionsConfig connections();

    Redis redis();

    /** Sweeps the manager drives itself ({@code "algorithm": "optuna"}, docs/sweeps.md). */
    Sweeps sweeps();

    interface Sweeps {
        /** The pool their drivers run on when a sweep names none; made on the local runtime on first use. */
        @WithDefault("warmpool-driver")
        String driverPool();

        /** How many drivers that pool runs at once (more sweeps' drivers wait in its queue). */
        @WithDefault("4")
        int driverPoolSize();

        /** The Python that pool runs (it needs Optuna): /usr/bin/python3 where there is one, else python3. */
        Optional<String> driverPython();

        /** Where that Python finds the client's warmpool package; by default clients/python under the working dir. */
        Optional<Path> driverPythonPath();

        /**
         * How often the manager looks for sweeps whose driver job has ended or is gone, and ends them
         * (a sweep waits on its driver for its trials; DriverWatch).
         */
        @WithDefault("10s")
        Duration driverCheck();
    }

    interface Redis {
        /** Port of the run command's own redis-server (read by WarmpoolMain, before this config exists). */
        @WithDefault("6380")
        int embeddedPort();

        /** Its data directory. */
        @WithDefault(".warmpool/redis")
        String embeddedDir();

        /**
         * Whether local agents connect as a Redis ACL user of their pool's own (see AgentUsers)
         * when Redis asks for a password; they use the manager's credentials otherwise.
         */
        @WithDefault("true")
        boolean agentUsers();

        /** How often an agent user gets a new password (the previous one stays valid until the next). */
        @WithDefault("24h")
        Duration agentPasswordRotation();

        /**
         * The PEM file of the one certificate the Redis must present, which agents pin (local agents
         * read the file, containers get a copy): set by the run command to its own Redis's, made at
         * its first start in {@code embedded-dir}. Unset for a Redis you configure: its URL says how
         * to reach it.
         */
        Optional<String> pinnedCertificate();
    }

    interface Policy {
        /**
         * Image prefixes a pool's template may use (e.g. {@code registry.example.com/ml/}); any
         * image when unset. A PUT /pools with another image is refused (403).
         */
        Optional<List<String>> images();

        /** Whether a pool's template may use hostPath volumes or privileged containers: no. */
        @WithDefault("false")
        boolean allowHostAccess();
    }

    interface Limits {
        /**
         * Jobs one caller may submit per second, over time (a batch counts its jobs, a sweep its
         * trials); past it a submit is answered 429 with Retry-After. Per manager replica. High
         * enough that a burst benchmark (about 500 jobs/s here) is not what it stops.
         */
        @WithDefault("2000")
        double submitsPerSecond();

        /** Jobs one caller may submit at once above the rate: a sweep or batch of that size goes through. */
        @WithDefault("20000")
        int submitBurst();
    }

    interface Events {
        /** Where agents send dev.warmpool.job.finished; K_SINK (a SinkBinding's) when unset; none when neither is. */
        Optional<String> sink();
    }

    interface Reconcile {
        /** How often the reconciler compares Redis with the runtime: 5 s, short against idle timeouts of minutes. */
        @WithDefault("5s")
        Duration interval();

        /** A processor that has not registered this long after its start is replaced: a JVM agent starts in under 1 s. */
        @WithDefault("60s")
        Duration startTimeout();

        /**
         * How long a process Redis does not know may run before it is stopped, and how long a
         * processor Redis knows may lack its process before it is removed: the heartbeat timeout
         * when unset (an agent re-registers within a heartbeat after Redis lost its data).
         */
        Optional<Duration> orphanGrace();

        /** A retired processor that has not gone away this long after is killed. */
        @WithDefault("30s")
        Duration drainTimeout();

        /**
         * How long past a job's timeout the manager waits for the agent to end it before it ends the
         * job TIMED_OUT itself and replaces the processor (a stuck or dead agent): 30 s, well past the
         * 5 s an agent gives a job between SIGTERM and SIGKILL, so a healthy agent always ends it first.
         */
        @WithDefault("30s")
        Duration timeoutGrace();

        /**
         * How long ahead of a learned pool's predicted arrival a processor is started: its start
         * (under 1 s locally, seconds for a pod) and one reconcile interval; the interval is added.
         */
        @WithDefault("5s")
        Duration warmthLead();
    }

    interface Heartbeat {
        /** How often an agent says it is alive. */
        @WithDefault("2s")
        Duration interval();

        /** A processor silent this long is lost: five missed heartbeats, so a GC pause or a slow Redis is no loss. */
        @WithDefault("10s")
        Duration timeout();
    }

    interface Jobs {
        /** How long a finished job stays readable: a week, long enough to read a weekend's results on Monday. */
        @WithDefault("7d")
        Duration retention();

        /** A job's timeout when its request names none: one hour. */
        @WithDefault("3600")
        int defaultTimeoutSeconds();

        /** How often a job is tried when its processor is lost, when its request names no number. */
        @WithDefault("3")
        int defaultMaxAttempts();

        /**
         * Most queued jobs over all pools, checked against the total the last reconcile pass
         * counted (a soft bound: each pool's own {@code maxQueued} is the exact one).
         */
        @WithDefault("100000")
        long maxQueued();

        /** How long an Idempotency-Key returns the job it created: a day, as the big APIs do. */
        @WithDefault("24h")
        Duration idempotencyRetention();

        /**
         * Whether {@code ?wait=} wakes on the job's end message (one pub/sub subscription per
         * manager); off, it re-reads the job on a schedule (5 ms doubling to 200 ms) instead.
         */
        @WithDefault("true")
        boolean wakeOnEnd();

        /**
         * About how many entries of a job's live log (its output lines and reports, in its
         * event stream) Redis keeps; the oldest go first. 0 turns live logs off: a job's output
         * is then seen only as the log tail once it has ended.
         */
        @WithDefault("10000")
        @jakarta.validation.constraints.PositiveOrZero
        int logLines();

        /** The longest {@code GET /jobs/{id}?wait=} honoured; clients wait again after it. */
        @WithDefault("300s")
        Duration maxWait();
    }

    interface Runtime {
        /**
         * Where processors live: {@code local} (child processes on this machine), {@code docker}
         * (containers of the pool's image on this machine's Docker or Podman) or {@code kubernetes} (pods).
         */
        @WithDefault("local")
        String type();

        /**
         * The machine's accelerators that processors of the local and docker runtimes get for
         * their own (a pool's {@code template.resources.limits."nvidia.com/gpu"} per processor):
         * device ids as {@code nvidia-smi -L} numbers them (e.g. {@code 0,1}), or {@code none}.
         * When unset, the GPUs {@code nvidia-smi -L} lists, none when it is absent.
         */
        Optional<List<String>> devices();

        /**
         * The most processes (threads count too) one processor's jobs may have at once, on the local
         * runtime (its room's cgroup {@code pids.max}, or {@code RLIMIT_NPROC} where there is no
         * cgroup) and on docker ({@code PidsLimit}); a pool's {@code template.resources.limits.pids}
         * overrides it. 4096 lets a build or a data loader fork freely and stops a fork bomb long
         * before the host's {@code pid_max}; 0: no bound.
         */
        @WithDefault("4096")
        long pidsLimit();

        /**
         * The most bytes an agent reads of a job's result file ({@code WARMPOOL_RESULT}), and the
         * longest line a persistent worker may print on stdout (its answer carries the metrics); a
         * job over it fails. 1 MiB: far above a job's metrics, a small part of the agent's 32 MB heap
         * (parsing a JSON text takes several times its size).
         */
        @WithDefault("1048576")
        @jakarta.validation.constraints.Positive
        @jakarta.validation.constraints.Max(256 * 1024 * 1024)
        int maxResultBytes();

        Local local();

        Docker docker();

        Kubernetes kubernetes();
    }

    interface Kubernetes {
        /** The namespace of the processor pods; the client's (the manager's own) when unset. */
        Optional<String> namespace();

        /** The image whose /warmpool the init container copies into each pod: a jlink runtime and the agent jar. */
        @WithDefault("ghcr.io/warmpool/warmpool-agent:0.1.0")
        String agentImage();

        /** The Redis address pods use; the manager's (quarkus.redis.hosts) when unset. */
        Optional<String> redisUrl();

        /**
         * The Secret that holds the Redis URL for pods, as {@code <secret>/<key>} (key {@code url}
         * when left out): pods read it from there, and their spec names no password. Set it
         * whenever Redis has a password.
         */
        Optional<String> redisSecret();

        /** The Lease that elects the one reconciling manager. */
        @WithDefault("warmpool-reconciler")
        String leaseName();
    }

    /** The docker runtime's settings (their own file: this one is long enough). */
    interface Docker extends DockerSettings {}

    interface Local {
        /** The agent jar; by default target/warmpool-agent.jar, else the manager's own class path. */
        Optional<Path> agentJar();

        /** Run agents from the manager's class path even when there is an agent jar (the unit tests do). */
        @WithDefault("false")
        boolean agentFromClassPath();

        /**
         * The manager's private dir (0700, refused when another user owns it or may write it):
         * agent logs, the first admin token, the Redis password file handed to agents.
         */
        @WithDefault(".warmpool")
        Path stateDir();

        /**
         * How jobs are fenced off from the manager and from each other: {@code bwrap} runs each
         * job (and each persistent worker) in a bubblewrap sandbox (own PID, IPC and UTS
         * namespaces, the file system read-only, a private /tmp, the state dir and the tokens
         * file not there, all its processes gone when it ends) and refuses to start without one;
         * {@code none} runs jobs as plain child processes in their own session; {@code auto}, the
         * default, is bwrap where it works, else none, said at every start.
         */
        @WithDefault("auto")
        String sandbox();

        /**
         * The Unix user jobs run as: {@code auto} (the default) is, when the manager runs as root, a
         * uid of each processor's own from {@link #jobUids()} (a job as root could read or change
         * anything on the machine, and a uid two processors shared would let one's job signal or
         * read the other's), and the manager's own user otherwise; {@code self} is always the
         * manager's user; else a user name, which all processors then share.
         */
        @WithDefault("auto")
        String runAs();

        /**
         * The uids a root manager's processors take their jobs' uid from, {@code first-last}: one
         * each, held while the processor lives (as systemd's DynamicUser does). The default,
         * 0x70000000 and the next 65535, lies in the range systemd documents as unused, so no
         * account of the host and no container's mapped range holds them.
         */
        @WithDefault("1879048192-1879113727")
        String jobUids();

        /**
         * wp-room, the init each processor's room runs its jobs with (built from src/main/c by
         * {@code ./mvnw package} when a C compiler is there); by default target/wp-room beside the
         * agent jar. Without one a job gets a bwrap of its own (8-12 ms more a job).
         */
        Optional<Path> roomInit();

        /**
         * JVM options of each agent: small heap, serial GC, C1 only; the agent is a thin loop. The
         * heap starts at 8 MB: started at its 32 MB maximum, all of it gets touched as eden cycles,
         * about 8 MB more RSS per agent. No perf data ({@code -XX:-UsePerfData}): no hsperfdata file to
         * make at each agent's start, so {@code jps} and {@code jstat} do not list agents.
         */
        @WithDefault(
                "-Xms8m,-Xmx32m,-Xss512k,-XX:+UseSerialGC,-XX:TieredStopAtLevel=1,-XX:ReservedCodeCacheSize=16m,-XX:MaxMetaspaceSize=64m,-Xshare:auto,-XX:-UsePerfData,-Dslf4j.internal.verbosity=ERROR")
        List<String> jvmOptions();
    }
}
