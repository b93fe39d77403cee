package dev.warmpool.agent;

import dev.warmpool.agent.io.ResultLimit;
import dev.warmpool.protocol.AgentEnv;
import dev.warmpool.protocol.PinnedCertificate;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** The agent's settings, from the environment its runtime gives it. */
record AgentConfig(
        String redisUrl,
        String redisCertificate,
        String pool,
        String processorId,
        long heartbeatMillis,
        long retentionSeconds,
        long stopGraceSeconds,
        long orphanSeconds,
        int logLines,
        int maxResultBytes,
        String apiAddress) {

    static AgentConfig fromEnv(Map<String, String> env) {
        return new AgentConfig(
                redisUrl(env),
                redisCertificate(env),
                required(env, AgentEnv.POOL),
                required(env, AgentEnv.PROCESSOR_ID),
                Long.parseLong(env.getOrDefault(AgentEnv.HEARTBEAT_INTERVAL_MS, "2000")),
                Long.parseLong(env.getOrDefault(AgentEnv.RETENTION_SECONDS, "604800")),
                Long.parseLong(env.getOrDefault(AgentEnv.STOP_GRACE_SECONDS, "20")),
                // how long a processor whose pool is gone from Redis waits for it to come back
                Long.parseLong(env.getOrDefault(AgentEnv.ORPHAN_SECONDS, "60")),
                // about how many entries of a job's live log Redis keeps; 0: no live log
                Integer.parseInt(env.getOrDefault(AgentEnv.LOG_LINES, "10000")),
                // the most a job's result file (or a persistent worker's line) may hold
                Integer.parseInt(
                        env.getOrDefault(AgentEnv.MAX_RESULT_BYTES, Integer.toString(ResultLimit.DEFAULT_BYTES))),
                // the manager's HTTP port, for a sweep driver's relay (the local runtime's agents only)
                env.get(AgentEnv.API_ADDRESS));
    }

    /**
     * The Redis URL, password and all: from {@code WARMPOOL_REDIS_URL_FILE}, a 0600 file the local
     * runtime writes and the agent deletes once read (a command line is world-readable in
     * {@code ps}, an environment is readable by the job's own user), or from
     * {@code WARMPOOL_REDIS_URL} (on Kubernetes, from a Secret).
     */
    static String redisUrl(Map<String, String> env) {
        String file = env.get(AgentEnv.REDIS_URL_FILE);
        if (file == null || file.isBlank()) {
            return required(env, AgentEnv.REDIS_URL);
        }
        Path path = Path.of(file);
        try {
            String url = Files.readString(path).trim();
            Files.deleteIfExists(path);
            return url;
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "WARMPOOL_REDIS_URL_FILE=" + file + " cannot be read: " + e.getMessage(), e);
        }
    }

    /**
     * The PEM certificate its Redis must present, from the file {@code WARMPOOL_REDIS_CERT_FILE}
     * names (the manager's own Redis); null when unset (a Redis the user configured).
     */
    static String redisCertificate(Map<String, String> env) {
        String file = env.get(PinnedCertificate.ENV);
        if (file == null || file.isBlank()) {
            return null;
        }
        try {
            return Files.readString(Path.of(file));
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    PinnedCertificate.ENV + "=" + file + " cannot be read: " + e.getMessage(), e);
        }
    }

    private static String required(Map<String, String> env, String name) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(name + " is not set; the runtime that starts the agent sets it");
        }
        return v;
    }
}
