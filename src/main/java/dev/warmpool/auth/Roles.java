package dev.warmpool.auth;

/**
 * The three roles a caller acts in. A submitter may also do what a viewer may, an admin all of it;
 * endpoints list every role that may call them, so no role hierarchy has to be resolved.
 */
public final class Roles {
    /** Reads: every GET, the event streams. */
    public static final String VIEWER = "viewer";
    /** Submits jobs, batches, sweeps and CloudEvents; cancels its own. */
    public static final String SUBMITTER = "submitter";
    /** Decides what a pool runs (PUT/DELETE /pools), cancels anyone's jobs. */
    public static final String ADMIN = "admin";
    /**
     * A server-side sweep's driver ({@link DriverTokens}): reads its one sweep and that sweep's trials,
     * adds trials, keeps the journal and stops trials early; no endpoint outside those lists it.
     */
    public static final String DRIVER = "sweep-driver";

    private Roles() {}
}
