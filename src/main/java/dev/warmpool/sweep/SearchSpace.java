package dev.warmpool.sweep;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * A sweep's search space and the configurations drawn from it: a pure function of the space,
 * the algorithm and the seed, so the same request always yields the same trials (and a test can
 * pin them). Parameters are taken in name order, so a configuration's order never depends on how
 * the request's JSON was written.
 *
 * <p>Per parameter: {@code {"grid": [...]}} or {@code {"choice": [...]}} (values),
 * {@code {"uniform": [lo, hi]}}, {@code {"logUniform": [lo, hi]}} (lo &gt; 0) and
 * {@code {"int": [lo, hi]}} (both ends included).
 */
public final class SearchSpace {

    /** One parameter's domain. */
    public sealed interface Param permits Values, Uniform, LogUniform, IntRange {}

    /** A list of values ({@code grid} or {@code choice}). */
    public record Values(List<JsonNode> values) implements Param {}

    public record Uniform(double lo, double hi) implements Param {}

    public record LogUniform(double lo, double hi) implements Param {}

    public record IntRange(long lo, long hi) implements Param {}

    private final Map<String, Param> params;

    private SearchSpace(Map<String, Param> params) {
        this.params = params;
    }

    public Map<String, Param> params() {
        return params;
    }

    /** Reads a space such as {@code {"lr": {"logUniform": [1e-4, 1e-1]}, "layers": {"grid": [2, 4]}}}. */
    public static SearchSpace parse(JsonNode space) {
        if (space == null || !space.isObject() || space.isEmpty()) {
            throw new IllegalArgumentException("'space' must be an object with at least one parameter, e.g. "
                    + "{\"lr\": {\"logUniform\": [0.0001, 0.1]}}");
        }
        Map<String, Param> params = new TreeMap<>();
        space.fields().forEachRemaining(e -> params.put(e.getKey(), param(e.getKey(), e.getValue())));
        return new SearchSpace(params);
    }

    private static Param param(String name, JsonNode spec) {
        if (spec == null || !spec.isObject() || spec.size() != 1) {
            throw new IllegalArgumentException(
                    "space." + name + " must be one of {\"grid\": [...]}, {\"choice\": [...]}, "
                            + "{\"uniform\": [lo, hi]}, {\"logUniform\": [lo, hi]}, {\"int\": [lo, hi]}");
        }
        String kind = spec.fieldNames().next();
        JsonNode arg = spec.get(kind);
        return switch (kind) {
            case "grid", "choice" -> {
                if (!arg.isArray() || arg.isEmpty()) {
                    throw new IllegalArgumentException(
                            "space." + name + "." + kind + " must be a non-empty list of values");
                }
                List<JsonNode> values = new ArrayList<>();
                arg.forEach(values::add);
                yield new Values(List.copyOf(values));
            }
            case "uniform" -> {
                double[] r = range(name, kind, arg);
                yield new Uniform(r[0], r[1]);
            }
            case "logUniform" -> {
                double[] r = range(name, kind, arg);
                if (r[0] <= 0) {
                    throw new IllegalArgumentException("space." + name + ".logUniform needs lo > 0");
                }
                yield new LogUniform(r[0], r[1]);
            }
            case "int" -> {
                double[] r = range(name, kind, arg);
                if (r[0] != Math.rint(r[0])
                        || r[1] != Math.rint(r[1])
                        || Math.abs(r[0]) > MAX_EXACT
                        || Math.abs(r[1]) > MAX_EXACT) {
                    throw new IllegalArgumentException("space." + name + ".int needs whole numbers from -"
                            + (long) MAX_EXACT + " to " + (long) MAX_EXACT);
                }
                yield new IntRange((long) r[0], (long) r[1]);
            }
            default ->
                throw new IllegalArgumentException("space." + name + ": unknown kind '" + kind
                        + "'; use grid, choice, uniform, logUniform or int");
        };
    }

    /** 2^53 - 1: whole numbers up to it are exact as doubles (and in every JSON client). */
    private static final double MAX_EXACT = 9_007_199_254_740_991d;

    private static double[] range(String name, String kind, JsonNode arg) {
        if (!arg.isArray()
                || arg.size() != 2
                || !arg.get(0).isNumber()
                || !arg.get(1).isNumber()) {
            throw new IllegalArgumentException("space." + name + "." + kind + " must be [lo, hi], two numbers");
        }
        double lo = arg.get(0).asDouble(), hi = arg.get(1).asDouble();
        if (!(lo < hi)) {
            throw new IllegalArgumentException("space." + name + "." + kind + " needs lo < hi");
        }
        if (!Double.isFinite(hi - lo)) {
            // a draw between them would be Infinity or NaN, which no trial can use
            throw new IllegalArgumentException("space." + name + "." + kind
                    + " needs a finite range: hi - lo must be at most " + Double.MAX_VALUE);
        }
        return new double[] {lo, hi};
    }

    /** Every combination of the parameters' values (grid search); only lists of values and int ranges can be gridded. */
    public List<Map<String, Object>> grid(int limit) {
        List<Map<String, Object>> out = new ArrayList<>();
        out.add(new LinkedHashMap<>());
        for (Map.Entry<String, Param> e : params.entrySet()) {
            List<Object> values = discrete(e.getKey(), e.getValue());
            List<Map<String, Object>> next = new ArrayList<>();
            for (Map<String, Object> partial : out) {
                for (Object v : values) {
                    Map<String, Object> c = new LinkedHashMap<>(partial);
                    c.put(e.getKey(), v);
                    next.add(c);
                    if (next.size() > limit) {
                        throw new IllegalArgumentException("the grid has more than " + limit + " configurations; "
                                + "narrow the space or use the random algorithm");
                    }
                }
            }
            out = next;
        }
        return out;
    }

    private static List<Object> discrete(String name, Param p) {
        if (p instanceof Values v) {
            return new ArrayList<>(v.values());
        }
        if (p instanceof IntRange r) {
            List<Object> values = new ArrayList<>();
            for (long i = r.lo(); i <= r.hi(); i++) {
                values.add(i);
            }
            return values;
        }
        throw new IllegalArgumentException("space." + name + " is continuous: the grid algorithm takes "
                + "grid, choice or int parameters; use the random algorithm");
    }

    /** {@code trials} configurations drawn at random; the same seed draws the same ones. */
    public List<Map<String, Object>> random(int trials, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Map<String, Object>> out = new ArrayList<>(trials);
        for (int t = 0; t < trials; t++) {
            Map<String, Object> c = new LinkedHashMap<>();
            params.forEach((name, p) -> c.put(name, sample(p, random)));
            out.add(c);
        }
        return out;
    }

    private static Object sample(Param p, SplittableRandom random) {
        if (p instanceof Values v) {
            return v.values().get(random.nextInt(v.values().size()));
        }
        if (p instanceof Uniform u) {
            return u.lo() + random.nextDouble() * (u.hi() - u.lo());
        }
        if (p instanceof LogUniform l) {
            return Math.exp(Math.log(l.lo()) + random.nextDouble() * (Math.log(l.hi()) - Math.log(l.lo())));
        }
        IntRange r = (IntRange) p;
        return r.lo() + random.nextLong(r.hi() - r.lo() + 1);
    }
}
