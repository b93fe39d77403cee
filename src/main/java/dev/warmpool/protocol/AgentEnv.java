package dev.warmpool.protocol;

import java.util.List;

/**
 * The launch contract between the manager's runtimes and the agent: the environment variables
 * each runtime (local process, container, pod) sets on a processor's agent, and that the agent
 * reads. Named once here, so a rename breaks the build, not one runtime at run time; {@code
 * AgentEnvTests} holds every runtime and the agent to these names.
 */
public final class AgentEnv {
    /** The pool the processor serves. */
    public static final String POOL = "WARMPOOL_POOL";
    /** The processor's id. */
    public static final String PROCESSOR_ID = "WARMPOOL_PROCESSOR_ID";

    /**
     * The throw-away agent the local runtime runs once to record the agents' class data: its
     * processor id and a pool no pool can be. It waits for no Redis (see {@link #CLASS_DATA_WAIT_SECONDS}).
     */
    public static final String CLASS_DATA_PROCESSOR = "class-data";

    public static final String CLASS_DATA_POOL = "_class-data";

    /**
     * How long the class-data agent waits for an unreachable Redis before it exits: it serves no
     * job, and one whose manager was killed while it started waited forever (CI left them running).
     */
    public static final long CLASS_DATA_WAIT_SECONDS = 10;
    /** Redis's URL with the pool user's credentials (Kubernetes, from a Secret). */
    public static final String REDIS_URL = "WARMPOOL_REDIS_URL";
    /** A file that holds Redis's URL (local processes, containers: never on a command line or in the environment). */
    public static final String REDIS_URL_FILE = "WARMPOOL_REDIS_URL_FILE";

    public static final String HEARTBEAT_INTERVAL_MS = "WARMPOOL_HEARTBEAT_INTERVAL_MS";
    public static final String RETENTION_SECONDS = "WARMPOOL_RETENTION_SECONDS";
    public static final String STOP_GRACE_SECONDS = "WARMPOOL_STOP_GRACE_SECONDS";
    public static final String ORPHAN_SECONDS = "WARMPOOL_ORPHAN_SECONDS";
    /** About how many entries of a job's live log Redis keeps; 0: none. */
    public static final String LOG_LINES = "WARMPOOL_LOG_LINES";
    /** The most a job's result file may hold. */
    public static final String MAX_RESULT_BYTES = "WARMPOOL_MAX_RESULT_BYTES";
    /** The names of the agent's own variables a job's environment keeps. */
    public static final String PASS_ENV = "WARMPOOL_PASS_ENV";
    /** How the agent sandboxes its jobs ({@code room} in a container). */
    public static final String SANDBOX = "WARMPOOL_SANDBOX";
    /** The room's init (wp-room) the agent starts. */
    public static final String ROOM_INIT = "WARMPOOL_ROOM_INIT";
    /** The jobs' user in a container or pod (a uid, never 0). */
    public static final String RUN_AS = "WARMPOOL_RUN_AS";
    /** The address a gang member is reached at by the others. */
    public static final String MEMBER_ADDR = "WARMPOOL_MEMBER_ADDR";
    /**
     * The manager's HTTP port on the agent's machine ({@code host:port}; the local runtime's only): the
     * agent relays a sweep driver's calls to it from a socket in the driver job's own dir.
     */
    public static final String API_ADDRESS = "WARMPOOL_API_ADDRESS";

    /** Every name above. */
    public static final List<String> ALL = List.of(
            POOL,
            PROCESSOR_ID,
            REDIS_URL,
            REDIS_URL_FILE,
            HEARTBEAT_INTERVAL_MS,
            RETENTION_SECONDS,
            STOP_GRACE_SECONDS,
            ORPHAN_SECONDS,
            LOG_LINES,
            MAX_RESULT_BYTES,
            PASS_ENV,
            SANDBOX,
            ROOM_INIT,
            RUN_AS,
            MEMBER_ADDR,
            API_ADDRESS);

    private AgentEnv() {}
}
