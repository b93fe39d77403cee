package dev.warmpool.service;

import dev.warmpool.pool.PodTemplate;
import dev.warmpool.pool.PoolSpec;
import java.util.List;
import java.util.Map;

/** The body of {@code PUT /pools/{type}}: a {@link PoolSpec} whose sizing fields may be left out. */
public record PoolRequest(
        List<String> command,
        Integer minIdle,
        Integer maxSize,
        Integer idleTimeoutSeconds,
        Map<String, String> env,
        String workingDir,
        Integer maxQueued,

        @com.fasterxml.jackson.databind.annotation.JsonDeserialize(using = PodTemplate.OnFirstUse.class)
        PodTemplate template,

        String worker,
        Integer maxJobsPerProcessor,
        Map<String, PoolSpec.GangRole> gang,
        List<String> jobEnv,
        List<String> submitters,
        String warmth,
        List<String> resetCommand,
        Integer maxAgeSeconds,
        Boolean fairShare,
        Map<String, Double> shares,
        Map<String, Integer> maxRunning,
        Map<String, List<String>> groups,
        Integer usageHalfLifeSeconds,
        String network,
        String runtime) {

    public PoolSpec toSpec() {
        return new PoolSpec(
                        command,
                        minIdle,
                        maxSize,
                        idleTimeoutSeconds,
                        env,
                        workingDir,
                        maxQueued,
                        template,
                        worker,
                        maxJobsPerProcessor,
                        gang,
                        jobEnv,
                        submitters,
                        warmth,
                        resetCommand,
                        maxAgeSeconds,
                        fairShare,
                        shares,
                        maxRunning,
                        groups,
                        usageHalfLifeSeconds,
                        network,
                        runtime)
                .withDefaults();
    }
}
