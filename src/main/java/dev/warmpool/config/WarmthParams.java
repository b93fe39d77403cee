package dev.warmpool.config;

import dev.warmpool.policy.Warmth;

/** The learned keep-alive's parameters as the config sets them: the hybrid policy's, with this deployment's lead. */
public final class WarmthParams {
    private WarmthParams() {}

    /** A processor is started {@code warmpool.reconcile.warmth-lead} plus one reconcile interval ahead of a predicted arrival. */
    public static Warmth.Params of(WarmpoolConfig config) {
        return Warmth.Params.DEFAULT.withLead(config.reconcile().warmthLead().toMillis()
                + config.reconcile().interval().toMillis());
    }
}
