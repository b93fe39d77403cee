package dev.warmpool.pool;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Map;

/**
 * Reads what a job wrote (metrics, reports) back from Redis, whatever it holds. Non-finite
 * numbers have one form everywhere: the strings {@code "NaN"}, {@code "Infinity"} and
 * {@code "-Infinity"}, as Python's {@code json} spells them, because strict JSON has no other
 * way to carry them (a bare {@code NaN} breaks {@code JSON.parse} and most parsers) and a string
 * keeps which of the three it was, which {@code null} would lose. A number beyond a double's
 * range is the infinity it rounds to. Agents store them so; what an older build stored (bare tokens, a number too large for a double) is turned into the same form
 * here, and text that is not JSON at all is shown as a string rather than failing the read.
 */
public final class StoredJson {
    private StoredJson() {}

    /** The stored JSON as a tree with non-finite numbers as strings; null for null or "". */
    public static JsonNode tree(ObjectMapper json, String s) {
        if (s == null || s.isEmpty()) {
            return null;
        }
        try {
            return finite(json.readTree(s));
        } catch (JsonProcessingException strict) {
            try {
                return finite(json.reader()
                        .with(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
                        .with(JsonReadFeature.ALLOW_LEADING_PLUS_SIGN_FOR_NUMBERS)
                        .readTree(s));
            } catch (JsonProcessingException | RuntimeException e) {
                return TextNode.valueOf(s);
            }
        }
    }

    /** The stored JSON as strict JSON text, non-finite numbers as strings (for a stored report on an event stream). */
    public static String text(ObjectMapper json, String s) {
        if (s == null || s.isEmpty()) {
            return s;
        }
        try {
            return json.writeValueAsString(tree(json, s));
        } catch (JsonProcessingException e) {
            return s;
        }
    }

    /**
     * A stored number as a finite double, or null: NaN, infinities, an older build's Lua spelling
     * ({@code nan}, {@code -nan}, {@code inf}) and text that is no number are all "no value".
     */
    public static Double finiteNumber(String s) {
        if (s == null || s.isBlank()) {
            return null;
        }
        try {
            double d = Double.parseDouble(s.trim());
            return Double.isFinite(d) ? d : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The spelling of a non-finite double: "NaN", "Infinity", "-Infinity". */
    public static String spelling(double d) {
        return Double.isNaN(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity";
    }

    private static JsonNode finite(JsonNode node) {
        if (node.isNumber() && !Double.isFinite(node.doubleValue())) {
            return TextNode.valueOf(spelling(node.doubleValue()));
        }
        if (node instanceof ObjectNode o) {
            for (var it = o.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                e.setValue(finite(e.getValue()));
            }
        } else if (node instanceof ArrayNode a) {
            for (int i = 0; i < a.size(); i++) {
                a.set(i, finite(a.get(i)));
            }
        }
        return node;
    }
}
