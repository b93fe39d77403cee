package dev.warmpool.testing;

import dev.warmpool.pool.PoolSpec;
import java.util.List;
import java.util.Map;

/** Pool specs for tests that build one by hand, as PoolService would store it (not through a request). */
public final class Specs {
    private Specs() {}

    /**
     * A plain pool running {@code command}, a new process per job: 1 to 4 processors, idle ones
     * kept 5 minutes, 100 jobs queued at most; set what a test is about on the builder.
     */
    public static PoolSpec.Builder process(String... command) {
        return PoolSpec.builder()
                .command(List.of(command))
                .minIdle(1)
                .maxSize(4)
                .idleTimeoutSeconds(300)
                .env(Map.of())
                .maxQueued(100)
                .worker("process");
    }
}
