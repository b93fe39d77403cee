package dev.warmpool.service;

/**
 * What the services tell the reconciler and ask of it, owned here so that services do not
 * depend on it: new demand (start processors now, not at the next tick), and the queued total
 * the last pass counted (the soft global bound on queued jobs).
 */
public interface ReconcilerPort {
    /** A submit found no idle processor, or a pool changed: reconcile soon. */
    void nudge();

    /** Pool {@code type} was created or changed: start what it lacks now, off the caller's thread. */
    default void nudge(String type) {
        nudge();
    }

    /** Queued jobs over all pools at the last reconcile pass. */
    long queuedJobs();

    /** Runs one reconcile pass now (a Knative ping's), on the caller's thread; what it did. */
    Report reconcileOnce();

    /** What one pass did. */
    record Report(boolean ran, int started, int retired, int lost, int orphansStopped, int poolsRemoved) {
        /** A pass that did not run (another manager leads, or Redis was not reached). */
        public static final Report SKIPPED = new Report(false, 0, 0, 0, 0, 0);
    }
}
