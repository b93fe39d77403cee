package dev.warmpool.scenario;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;

/** The limits scenarios with jobs in their processors' resident bubblewrap rooms, as in %prod. */
@QuarkusTest
@TestProfile(PoolLimitsSandboxedTests.Sandboxed.class)
class PoolLimitsSandboxedTests extends PoolLimitsScenarios {
    public static class Sandboxed implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("warmpool.runtime.local.sandbox", "bwrap");
        }
    }
}
