package dev.warmpool.runtime;

/**
 * The labels warmpool puts on what it starts, the same on pods and containers, so one selector
 * (and an operator's {@code kubectl get pods -l} or {@code docker ps --filter label=}) finds a
 * pool's processors on either runtime.
 */
public final class Labels {
    /** Always {@link #MANAGER}: what a reconcile lists, so it never touches others' pods or containers. */
    public static final String MANAGED_BY = "app.kubernetes.io/managed-by";

    public static final String MANAGER = "warmpool";
    public static final String POOL = "warmpool.dev/pool";
    public static final String PROCESSOR = "warmpool.dev/processor";
    /** The gang a member belongs to (its Service on Kubernetes, its network on docker carry it too). */
    public static final String GANG = "warmpool.dev/gang";

    private Labels() {}
}
