package dev.warmpool.protocol;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class EnvNamesTests {
    @Test
    void forbidsTheLoaderTheInterpreterHooksAndWarmpoolsOwnInAnyCase() {
        for (String name : List.of(
                "LD_PRELOAD",
                "ld_audit",
                "DYLD_INSERT_LIBRARIES",
                "WARMPOOL_REDIS_URL",
                "PATH",
                "BASH_ENV",
                "ENV",
                "PYTHONPATH",
                "PYTHONSTARTUP",
                "PERL5OPT",
                "NODE_OPTIONS",
                "JAVA_TOOL_OPTIONS",
                "Home")) {
            assertTrue(EnvNames.forbidden(name), name);
        }
        for (String name : List.of("HF_HOME", "CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS", "SEED")) {
            assertFalse(EnvNames.forbidden(name), name);
        }
    }

    @Test
    void allowsOnlyWhatThePoolListsByNameOrPrefixAndNeverAForbiddenName() {
        List<String> jobEnv = List.of("SEED", "HF_*", "L*");
        assertTrue(EnvNames.allowed("SEED", jobEnv));
        assertTrue(EnvNames.allowed("HF_HOME", jobEnv));
        assertFalse(EnvNames.allowed("SEEDS", jobEnv));
        assertFalse(EnvNames.allowed("LD_PRELOAD", jobEnv), "a prefix pattern never lets a forbidden name through");
        assertFalse(EnvNames.allowed("SEED", null), "a pool without jobEnv lets a job set nothing");
    }
}
