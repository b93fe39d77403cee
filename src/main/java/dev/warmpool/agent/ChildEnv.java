package dev.warmpool.agent;

import dev.warmpool.protocol.EnvNames;
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
    static final List<String> BASE = List.of("PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "USER", "LOGNAME",
            "SHELL", "TERM");
    /** Names the runtime asks to pass on as well (a pod template's env for the training image). */
    static final String PASS = "WARMPOOL_PASS_ENV";

    private ChildEnv() {
    }

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
     * {@code WARMPOOL_CONFIG} and {@code WARMPOOL_RESULT}.
     */
    static Map<String, String> forJob(Map<String, String> base, Map<String, String> poolEnv,
            com.google.gson.JsonObject role, Map<String, String> jobEnv, com.google.gson.JsonObject member, String jobId,
            String configJson, java.nio.file.Path resultFile) {
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
        env.put("WARMPOOL_CONFIG", configJson);
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
                Agent.log("job %s: its env may not set %s; dropped", jobId, name);
            }
            return no;
        });
        return out;
    }
}
