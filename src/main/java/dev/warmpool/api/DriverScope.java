package dev.warmpool.api;

import dev.warmpool.auth.DriverTokens;
import dev.warmpool.auth.Roles;
import dev.warmpool.pool.Ids;
import dev.warmpool.service.Refusal;
import io.quarkus.security.identity.SecurityIdentity;

/**
 * Where a server-side sweep's driver may go: the endpoints that list {@link Roles#DRIVER} call
 * this first, and a driver's token reaches its own sweep and that sweep's trials, nothing else.
 */
final class DriverScope {
    private DriverScope() {}

    /** Refuses a driver outside {@code sweepId}, the sweep this request reaches (null: none). */
    static void sweep(SecurityIdentity identity, String sweepId) {
        if (identity.hasRole(Roles.DRIVER)) {
            Object mine = identity.getAttribute(DriverTokens.SWEEP);
            if (sweepId == null || !sweepId.equals(mine)) {
                throw Refusal.forbidden("A sweep driver's token reaches its own sweep (" + mine
                        + ") and that sweep's trials, nothing else.");
            }
        }
    }

    /** Refuses a driver outside its sweep's trials, for the job {@code jobId}. */
    static void trial(SecurityIdentity identity, String jobId) {
        if (identity.hasRole(Roles.DRIVER)) {
            sweep(identity, Ids.sweepOfTrial(jobId));
        }
    }
}
