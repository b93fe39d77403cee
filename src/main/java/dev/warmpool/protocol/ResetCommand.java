package dev.warmpool.protocol;

/** What the agent and the manager agree on about a pool's reset command, run between two jobs. */
public final class ResetCommand {
    private ResetCommand() {}

    /**
     * How long a reset command may run before it counts as failed (the agent then hands its
     * processor back); the reconciler waits this long more for a job assigned behind one.
     */
    public static final long TIMEOUT_SECONDS = 120;
}
