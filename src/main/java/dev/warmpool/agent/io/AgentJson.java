package dev.warmpool.agent.io;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import com.google.gson.reflect.TypeToken;
import dev.warmpool.protocol.script.Replies;
import java.util.List;
import java.util.Map;

/** The JSON the scripts hand the agent (command, env, spec, args), read with Gson. */
public final class AgentJson {
    public static final Gson GSON = new Gson();

    private AgentJson() {}

    public static String text(JsonObject o, String field) {
        return o.has(field) && o.get(field).isJsonPrimitive() ? o.get(field).getAsString() : null;
    }

    public static List<String> strings(Object json) {
        return GSON.fromJson(element(json), new TypeToken<List<String>>() {}.getType());
    }

    public static Map<String, String> stringMap(Object json) {
        return GSON.fromJson(element(json), new TypeToken<Map<String, String>>() {}.getType());
    }

    /**
     * What a job wrote (its result, a report) as strict JSON text: NaN and the infinities, which
     * Python's {@code json} and Gson write as bare tokens and a lenient parse reads as text, stay
     * the strings "NaN", "Infinity", "-Infinity"; a number beyond a double's range becomes the
     * infinity it rounds to. So every reader (the scripts, Jackson, a browser) reads them alike
     * (dev.warmpool.pool.StoredJson reads them back).
     */
    public static String finite(JsonElement e) {
        return finiteTree(e).toString();
    }

    private static JsonElement finiteTree(JsonElement e) {
        if (e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber()) {
            double d = e.getAsDouble();
            return Double.isFinite(d)
                    ? e
                    : new JsonPrimitive(Double.isNaN(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
        }
        if (e.isJsonObject()) {
            for (Map.Entry<String, JsonElement> f : e.getAsJsonObject().entrySet()) {
                f.setValue(finiteTree(f.getValue()));
            }
        } else if (e.isJsonArray()) {
            JsonArray a = e.getAsJsonArray();
            for (int i = 0; i < a.size(); i++) {
                a.set(i, finiteTree(a.get(i)));
            }
        }
        return e;
    }

    private static JsonElement element(Object json) {
        return json instanceof JsonElement e ? e : JsonParser.parseString(Replies.string(json));
    }
}
