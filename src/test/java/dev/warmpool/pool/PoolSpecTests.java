package dev.warmpool.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** What a spec keeps through its copies: its runtime, and env values masked wherever they are. */
@Tag("unit")
class PoolSpecTests {
    static PoolSpec withTemplateEnv() {
        return PoolSpec.builder()
                .command(List.of("true"))
                .minIdle(0)
                .maxSize(1)
                .idleTimeoutSeconds(300)
                .env(Map.of("HF_TOKEN", "pool-secret"))
                .template(new PodTemplate(
                        "img",
                        null,
                        Map.of("TPL_KEY", "template-secret"),
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null))
                .build()
                .withDefaults()
                .withRuntime("docker");
    }

    @Test
    void maskedEnvValuesReachTheTemplatesEnvAndKeepTheRuntime() {
        PoolSpec shown = withTemplateEnv().withEnvValues(env -> {
            Map<String, String> out = new TreeMap<>();
            env.keySet().forEach(k -> out.put(k, "***"));
            return out;
        });
        assertEquals(Map.of("TPL_KEY", "***"), shown.template().env());
        assertEquals(Map.of("HF_TOKEN", "***"), shown.env());
        assertEquals("docker", shown.runtime());
    }

    @Test
    void itsRuntimeSurvivesDefaultsAndTheNetworksDefault() {
        PoolSpec spec = withTemplateEnv().withNetwork("outbound").withDefaults();
        assertEquals("docker", spec.runtime());
        assertEquals("outbound", spec.network());
    }
}
