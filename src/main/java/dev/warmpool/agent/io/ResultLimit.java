package dev.warmpool.agent.io;

/**
 * How much of a job's answer the agent reads: its result file, or the line a persistent worker
 * answers with. One bound for both, so a job's result does not depend on how its pool runs it.
 */
public final class ResultLimit {
    private ResultLimit() {}

    /** The bound when the runtime names none: far above the few metrics a job returns, far below the agent's heap. */
    public static final int DEFAULT_BYTES = 1 << 20;

    /** The manager's setting of the bound, named in the sentence a job gets when it is over it. */
    public static final String SETTING = "warmpool.runtime.max-result-bytes";
}
