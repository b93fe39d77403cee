package dev.warmpool.config;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.warmpool.pool.PoolSpec;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.Config;

/**
 * The pools declared under {@code warmpool.pools."<type>"}, read into the {@link PoolSpec} that
 * {@code PUT /pools/{type}} takes: a key names the body's field, in kebab-case or as written
 * ({@code min-idle}, {@code usage-half-life-seconds}, {@code template.node-selector."kubernetes.io/arch"},
 * {@code gang.worker.count}, {@code shares.alice}, {@code command[0]}), so every field a request
 * can set, config can, and a field added to the spec is one here too. A list is indexed ({@code
 * command[0]}) or comma-separated ({@code \,} keeps a comma). Besides the spec's fields: {@code
 * image}, short for {@code template.image}. A pool with no {@code runtime} gets {@code
 * warmpool.runtime.type}; on docker a pool without an image is left out (a warning, not an error,
 * so the demo pool does not stop a docker manager). The specs are read once, at the start: config
 * does not change while the manager runs. Environment variables override a key a file or {@code -D}
 * declares; they cannot declare one (their names do not say where a segment ends).
 */
@ApplicationScoped
public class ConfigPools {
    static final String PREFIX = "warmpool.pools.";
    static final String IMAGE = "image";

    /** What config declares: the pools to put, those left out, and what is wrong, each naming its key. */
    public record Declared(Map<String, PoolSpec> specs, List<String> leftOut, List<String> problems) {}

    private final Declared declared;

    public ConfigPools(Config config, WarmpoolConfig warmpool, ObjectMapper mapper) {
        this.declared = read(config, warmpool.runtime().type(), mapper);
    }

    /** Every declared pool its runtime can run, by type (defaults filled in, unchecked: PoolService checks). */
    public Map<String, PoolSpec> specs() {
        return declared.specs();
    }

    /** The declared pools left out: on the docker runtime, those without an image. */
    public List<String> leftOut() {
        return declared.leftOut();
    }

    /** The declared keys that do not make a pool: a field the spec lacks, a value of the wrong kind. */
    public List<String> problems() {
        return declared.problems();
    }

    static Declared read(Config config, String defaultRuntime, ObjectMapper mapper) {
        Map<String, ObjectNode> trees = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        JavaType specType = mapper.constructType(PoolSpec.class);
        // what each key set, as the field path it resolved to, to refuse one field set two ways
        Map<String, Map<String, String>> set = new TreeMap<>();
        List<String> names = new ArrayList<>();
        config.getPropertyNames().forEach(names::add);
        names.sort(null); // the same pool from the same keys, whatever order the sources list them in
        for (String name : names) {
            if (!name.startsWith(PREFIX)) {
                continue; // also a profile's key that is not active ("%dev.warmpool...")
            }
            Optional<String> value = config.getOptionalValue(name, String.class);
            if (value.isEmpty()) {
                continue; // set empty: left out, as a request that leaves the field out
            }
            List<String> segments = segments(name.substring(PREFIX.length()));
            if (segments.size() < 2) {
                problems.add(name + " names no field: declare a pool's fields, e.g. " + PREFIX + "train.command[0]");
                continue;
            }
            ObjectNode tree = trees.computeIfAbsent(segments.get(0), t -> JsonNodeFactory.instance.objectNode());
            List<String> path = segments.subList(1, segments.size());
            if (path.equals(List.of(IMAGE))) {
                path = List.of("template", IMAGE);
            }
            try {
                List<String> where = new ArrayList<>();
                put(mapper, tree, specType, path, value.get(), where);
                String field = String.join("\u0000", where);
                Map<String, String> pool = set.computeIfAbsent(segments.get(0), t -> new TreeMap<>());
                pool.forEach((other, otherName) -> {
                    if (other.equals(field)
                            || other.startsWith(field + "\u0000")
                            || field.startsWith(other + "\u0000")) {
                        problems.add(name + " and " + otherName + " both set '"
                                + String.join(".", where).replace(".[", "[")
                                + "': keep one (a list is either indexed, command[0], or one line, command=a,b)");
                    }
                });
                pool.put(field, name);
            } catch (IllegalArgumentException e) {
                problems.add(name + " " + e.getMessage());
            }
        }
        Map<String, PoolSpec> specs = new TreeMap<>();
        List<String> leftOut = new ArrayList<>();
        trees.forEach((type, tree) -> {
            String runtime = tree.path("runtime").asText(defaultRuntime);
            boolean image = tree.path("template").has(IMAGE);
            if (!image && "docker".equals(runtime)) {
                leftOut.add(type);
                return;
            }
            if (image && "local".equals(runtime) && tree.path("template").size() == 1) {
                // a local pool's processors are processes of this machine: an image names nothing there
                tree.remove("template");
            }
            try {
                PoolSpec spec = mapper.treeToValue(tree, PoolSpec.class);
                specs.put(type, spec.withRuntime(runtime).withDefaults());
            } catch (JsonMappingException e) {
                String field = e.getPath().stream()
                        .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                        .collect(Collectors.joining("."))
                        .replace(".[", "[");
                problems.add(PREFIX + type + " is not a pool: '" + field + "' " + e.getOriginalMessage());
            } catch (IOException e) {
                problems.add(PREFIX + type + " is not a pool: " + e);
            }
        });
        return new Declared(specs, leftOut, problems);
    }

    /** Sets {@code value} at {@code path} under {@code node}, whose Java type is {@code type}. */
    private static void put(
            ObjectMapper mapper, JsonNode node, JavaType type, List<String> path, String value, List<String> where) {
        Segment head = Segment.of(path.get(0));
        JavaType child;
        String key;
        if (type.isMapLikeType()) {
            key = head.name(); // a map's key, as written: an env name, a tenant, a node label
            child = type.getContentType();
        } else {
            BeanPropertyDefinition field = field(mapper, type, head)
                    .orElseThrow(
                            () -> new IllegalArgumentException(
                                    "names no field of " + type.getRawClass().getSimpleName() + " ('" + head.name()
                                            + "'): the pool's fields are those of PUT /pools/{type}, in kebab-case, e.g. min-idle"));
            key = field.getName();
            child = field.getPrimaryType();
        }
        ObjectNode object = (ObjectNode) node;
        boolean last = path.size() == 1;
        where.add(key);
        if (head.index() != null) {
            if (!child.isCollectionLikeType()) {
                throw new IllegalArgumentException("indexes '" + key + "', which is not a list");
            }
            where.add("[" + head.index() + "]");
            JsonNode existing = object.get(key);
            ArrayNode list = existing instanceof ArrayNode a ? a : object.putArray(key);
            JavaType element = child.getContentType();
            while (list.size() <= head.index()) {
                list.addNull();
            }
            if (last) {
                list.set(head.index(), leaf(element, value));
            } else {
                JsonNode slot = list.get(head.index());
                if (!(slot instanceof ObjectNode)) {
                    slot = JsonNodeFactory.instance.objectNode();
                    list.set(head.index(), slot);
                }
                put(mapper, slot, element, path.subList(1, path.size()), value, where);
            }
        } else if (last) {
            object.set(
                    key, child.isCollectionLikeType() ? commaList(child.getContentType(), value) : leaf(child, value));
        } else {
            if (child.isCollectionLikeType() || scalar(child)) {
                throw new IllegalArgumentException("goes below '" + key + "', which holds a single value or a list");
            }
            JsonNode existing = object.get(key);
            ObjectNode inner = existing instanceof ObjectNode o ? o : object.putObject(key);
            put(mapper, inner, child, path.subList(1, path.size()), value, where);
        }
    }

    private static Optional<BeanPropertyDefinition> field(ObjectMapper mapper, JavaType type, Segment head) {
        BeanDescription bean = mapper.getDeserializationConfig().introspect(type);
        String camel = camel(head.name());
        return bean.findProperties().stream()
                .filter(p -> p.getName().equals(camel) || p.getName().equals(head.name()))
                .findFirst();
    }

    /** A list written on one line: {@code a,b,c}; {@code \,} is a comma within an element. */
    private static ArrayNode commaList(JavaType element, String value) {
        ArrayNode list = JsonNodeFactory.instance.arrayNode();
        for (String part : value.split("(?<!\\\\),", -1)) {
            list.add(leaf(element, part.replace("\\,", ",")));
        }
        return list;
    }

    private static boolean scalar(JavaType t) {
        Class<?> c = t.getRawClass();
        return c == String.class || Number.class.isAssignableFrom(c) || c == Boolean.class || c.isPrimitive();
    }

    /** The value as the JSON a request would send for the field's type. */
    private static JsonNode leaf(JavaType type, String value) {
        Class<?> c = type.getRawClass();
        if (c == Integer.class || c == int.class) {
            try {
                return IntNode.valueOf(Integer.parseInt(value.trim()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "must be a whole number up to " + Integer.MAX_VALUE + ", not '" + value + "'");
            }
        }
        if (c == Long.class || c == long.class) {
            try {
                return LongNode.valueOf(Long.parseLong(value.trim()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("must be a whole number, not '" + value + "'");
            }
        }
        if (c == Double.class || c == double.class) {
            try {
                return DoubleNode.valueOf(Double.parseDouble(value.trim()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("must be a number, not '" + value + "'");
            }
        }
        if (c == Boolean.class || c == boolean.class) {
            String v = value.trim();
            if (!v.equals("true") && !v.equals("false")) {
                throw new IllegalArgumentException("must be true or false, not '" + value + "'");
            }
            return BooleanNode.valueOf(Boolean.parseBoolean(v));
        }
        return TextNode.valueOf(value); // a string, or a bean with a string form (fabric8's Quantity: "500m")
    }

    private static String camel(String kebab) {
        StringBuilder out = new StringBuilder();
        boolean up = false;
        for (char ch : kebab.toCharArray()) {
            if (ch == '-') {
                up = true;
            } else {
                out.append(up ? Character.toUpperCase(ch) : ch);
                up = false;
            }
        }
        return out.toString();
    }

    /** One segment of a key: a name (quoted where it holds dots) and an optional index, {@code command[2]}. */
    record Segment(String name, Integer index) {
        private static final Pattern INDEXED = Pattern.compile("(.*)\\[(\\d{1,4})]");

        static Segment of(String raw) {
            Matcher m = INDEXED.matcher(raw);
            String name = m.matches() ? m.group(1) : raw;
            Integer index = m.matches() ? Integer.valueOf(m.group(2)) : null;
            if (name.length() >= 2 && name.startsWith("\"") && name.endsWith("\"")) {
                name = name.substring(1, name.length() - 1);
            }
            return new Segment(name, index);
        }
    }

    /** A key's segments, split at dots outside quotes: {@code "a.b".env."X.Y"} is three. */
    static List<String> segments(String key) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (char ch : key.toCharArray()) {
            if (ch == '"') {
                quoted = !quoted;
                cur.append(ch);
            } else if (ch == '.' && !quoted) {
                out.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(ch);
            }
        }
        out.add(cur.toString());
        out.set(0, Segment.of(out.get(0)).name()); // the type, unquoted
        return out;
    }
}
