package dev.warmpool.agent;

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.reflect.TypeToken;
import dev.warmpool.protocol.Replies;
import java.util.List;
import java.util.Map;

/** The JSON the scripts hand the agent (command, env, spec, args), read with Gson. */
final class AgentJson {
    static final Gson GSON = new Gson();

    private AgentJson() {
    }

    static String text(JsonObject o, String field) {
        return o.has(field) && o.get(field).isJsonPrimitive() ? o.get(field).getAsString() : null;
    }

    static List<String> strings(Object json) {
        return GSON.fromJson(element(json), new TypeToken<List<String>>() { }.getType());
    }

    static Map<String, String> stringMap(Object json) {
        return GSON.fromJson(element(json), new TypeToken<Map<String, String>>() { }.getType());
    }

    private static JsonElement element(Object json) {
        return json instanceof JsonElement e ? e : JsonParser.parseString(Replies.string(json));
    }
}
