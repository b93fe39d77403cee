package dev.warmpool.agent;

import java.util.Map;

/** The agent's settings, from the environment its runtime gives it. */
record AgentConfig(String redisUrl, String pool, String processorId, long heartbeatMillis, long retentionSeconds,
        long stopGraceSeconds, long orphanSeconds) {

    static AgentConfig fromEnv(Map<String, String> env) {
        return new AgentConfig(
                required(env, "WARMPOOL_REDIS_URL"),
                required(env, "WARMPOOL_POOL"),
                required(env, "WARMPOOL_PROCESSOR_ID"),
                Long.parseLong(env.getOrDefault("WARMPOOL_HEARTBEAT_INTERVAL_MS", "2000")),
                Long.parseLong(env.getOrDefault("WARMPOOL_RETENTION_SECONDS", "604800")),
                Long.parseLong(env.getOrDefault("WARMPOOL_STOP_GRACE_SECONDS", "20")),
                // how long a processor whose pool is gone from Redis waits for it to come back
                Long.parseLong(env.getOrDefault("WARMPOOL_ORPHAN_SECONDS", "60")));
    }

    private static String required(Map<String, String> env, String name) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(name + " is not set; the runtime that starts the agent sets it");
        }
        return v;
    }
}
