package dev.warmpool.agent;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.warmpool.agent.io.AgentJson;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The pool's part of a job as start.lua and finish.lua return it (command, env, spec JSON),
 * parsed once: it is the same for job after job, and parsing it took a tenth of the agent's
 * work per job. Read-only: the spec is never changed, the lists and maps cannot be.
 */
record PoolPart(
        String commandJson,
        String envJson,
        String specJson,
        List<String> command,
        Map<String, String> env,
        JsonObject spec) {

    /** {@code last} when the texts are the same, else the newly parsed part. */
    static PoolPart of(PoolPart last, String commandJson, String envJson, String specJson) {
        if (last != null
                && last.commandJson.equals(commandJson)
                && last.envJson.equals(envJson)
                && last.specJson.equals(specJson)) {
            return last;
        }
        return new PoolPart(
                commandJson,
                envJson,
                specJson,
                Collections.unmodifiableList(AgentJson.strings(commandJson)),
                Collections.unmodifiableMap(AgentJson.stringMap(envJson)),
                JsonParser.parseString(specJson).getAsJsonObject());
    }
}
