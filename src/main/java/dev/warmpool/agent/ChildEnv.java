package dev.warmpool.agent;

import com.google.gson.JsonObject;
import dev.warmpool.agent.io.AgentJson;
import dev.warmpool.agent.io.AgentLog;
import dev.warmpool.protocol.AgentEnv;
import dev.warmpool.protocol.EnvNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The environment a job's process starts with, built from scratch: a small safe base taken from
 * the agent's own environment, the pool's env, the job's allowed env, and warmpool's
 * {@code WARMPOOL_JOB_*} variables. Nothing else of the agent's reaches a job: not its Redis
 * address or password, not a token.
 */
final class ChildEnv {
    /** What a program expects to find; the locale's {@code LC_*} variables come too. */
    static final List<String> BASE =
            List.of("PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "USER", "LOGNAME", "SHELL", "TERM");
    /** Names the runtime asks to pass on as well (a pod template's env for the training image). */
    static final String PASS = AgentEnv.PASS_ENV;
    /**
     * Configs from this size (bytes of JSON) on go to a file, {@code WARMPOOL_CONFIG_FILE}, not
     * into {@code WARMPOOL_CONFIG}: Linux refuses to start a process with one environment string
     * over 128 KiB ("Argument list too long"), and the API takes bodies up to 1 MiB.
     */
    static final int CONFIG_IN_ENV_MAX = 64 * 1024;
    /** The name of a large config's file, beside the job's result file. */
    static final String CONFIG_FILE = "config.json";

    /** The variable that names a large config's file. */
    static final String CONFIG_FILE_VARIABLE = "WARMPOOL_CONFIG_FILE";

    private ChildEnv() {}

    /** The base every job and worker of this agent starts from. */
    static Map<String, String> base(Map<String, String> agentEnv) {
        Map<String, String> out = new HashMap<>();
        agentEnv.forEach((k, v) -> {
            if (BASE.contains(k) || k.startsWith("LC_")) {
                out.put(k, v);
            }
        });
        String pass = agentEnv.get(PASS);
        if (pass != null) {
            for (String name : pass.split(",")) {
                String n = name.trim();
                if (!n.isEmpty() && !n.startsWith("WARMPOOL_") && agentEnv.containsKey(n)) {
                    out.put(n, agentEnv.get(n));
                }
            }
        }
        return out;
    }

    /**
     * A job's environment, later entries winning: the base, the pool's env, a gang role's, the
     * job's allowed env, a gang member's addresses, then warmpool's {@code WARMPOOL_JOB_ID},
     * {@code WARMPOOL_CONFIG} (or, for a config of {@link #CONFIG_IN_ENV_MAX} or more,
     * {@code WARMPOOL_CONFIG_FILE}: a 0600 file beside the result file, in the job's own dir,
     * which goes when the job ends) and {@code WARMPOOL_RESULT}.
     */
    static Map<String, String> forJob(
            Map<String, String> base,
            Map<String, String> poolEnv,
            JsonObject role,
            Map<String, String> jobEnv,
            JsonObject member,
            String jobId,
            String configJson,
            Path resultFile) {
        Map<String, String> env = new HashMap<>(base);
        env.putAll(poolEnv);
        if (role != null && role.has("env") && role.get("env").isJsonObject()) {
            env.putAll(AgentJson.stringMap(role.get("env")));
        }
        env.putAll(jobEnv);
        if (member != null) {
            env.putAll(GangEnv.of(member));
        }
        env.put("WARMPOOL_JOB_ID", jobId);
        if (configJson.length() < CONFIG_IN_ENV_MAX / 4
                || configJson.getBytes(StandardCharsets.UTF_8).length < CONFIG_IN_ENV_MAX) {
            env.put("WARMPOOL_CONFIG", configJson);
        } else {
            Path file = resultFile.resolveSibling(CONFIG_FILE);
            try {
                Files.createFile(
                        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                Files.writeString(file, configJson);
                env.put(CONFIG_FILE_VARIABLE, file.toString());
            } catch (IOException e) {
                // the job's start then fails with the system's reason, recorded as the job's error
                AgentLog.log(
                        "job %s: could not write its config to %s (%s); it goes in WARMPOOL_CONFIG", jobId, file, e);
                env.put("WARMPOOL_CONFIG", configJson);
            }
        }
        env.put("WARMPOOL_RESULT", resultFile.toString());
        return env;
    }

    /**
     * The job's own variables that it may set: the manager refuses the others (400), so one that
     * arrives here came past it (an old manager, a hand-written job hash) and is dropped, and said.
     */
    static Map<String, String> allowed(String jobId, Map<String, String> requested) {
        if (requested.isEmpty()) {
            return requested;
        }
        Map<String, String> out = new HashMap<>(requested);
        out.keySet().removeIf(name -> {
            boolean no = EnvNames.forbidden(name);
            if (no) {
                AgentLog.log("job %s: its env may not set %s; dropped", jobId, name);
            }
            return no;
        });
        return out;
    }
}
