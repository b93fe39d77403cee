package dev.warmpool.policy;

import dev.warmpool.pool.PoolSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A pool's fair share between its tenants, as its spec sets it and the scripts read it
 * (lua/lib/tenants.lua reads the pool hash's {@code fair}, written by pool_put). See docs/fair-share.md.
 *
 * <p>Why a half-life at all: the running jobs alone would let a tenant who ran all night take the
 * next free processor as readily as one who ran nothing; decayed usage remembers the night, and
 * forgets it at a pace the operator chose. 0 is allowed and means "the running jobs alone", stated
 * in the docs as such rather than a silent off (kueue#11134).
 */
public final class FairShare {
    /** One hour: long enough to remember a sweep's flood, short enough that a day starts afresh. */
    public static final int DEFAULT_HALF_LIFE_SECONDS = PoolSpec.DEFAULT_USAGE_HALF_LIFE_SECONDS;

    private FairShare() {}

    /** One field and why it is refused, for a problem+json. */
    public record Problem(String field, String detail) {}

    /**
     * The settings as the scripts read them: {@code {on, halfLife, shares, maxRunning, groupOf}},
     * where {@code groupOf} maps each group member to its group (one lookup per submit).
     */
    public static Map<String, Object> settings(PoolSpec spec) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("on", !Boolean.FALSE.equals(spec.fairShare()));
        out.put(
                "halfLife",
                spec.usageHalfLifeSeconds() == null ? DEFAULT_HALF_LIFE_SECONDS : spec.usageHalfLifeSeconds());
        out.put("shares", spec.shares() == null ? Map.of() : new TreeMap<>(spec.shares()));
        out.put("maxRunning", spec.maxRunning() == null ? Map.of() : new TreeMap<>(spec.maxRunning()));
        out.put("groupOf", groupOf(spec));
        return out;
    }

    /** Each member of a group to its group. */
    public static Map<String, String> groupOf(PoolSpec spec) {
        Map<String, String> out = new TreeMap<>();
        if (spec.groups() != null) {
            new TreeMap<>(spec.groups()).forEach((g, members) -> members.forEach(m -> out.putIfAbsent(m, g)));
        }
        return out;
    }

    /**
     * What the per-field checks cannot see: a member of two groups (its jobs could count for
     * one only), and a weight or cap given to a group member (its jobs count for the group, so the
     * setting would never apply).
     */
    public static Optional<Problem> problem(PoolSpec spec) {
        Map<String, String> seen = new TreeMap<>();
        if (spec.groups() != null) {
            for (Map.Entry<String, List<String>> g : new TreeMap<>(spec.groups()).entrySet()) {
                for (String m : g.getValue()) {
                    String other = seen.putIfAbsent(m, g.getKey());
                    if (other != null && !other.equals(g.getKey())) {
                        return Optional.of(new Problem(
                                "groups." + g.getKey(),
                                "'" + m + "' is in both group '" + other + "' and group '" + g.getKey()
                                        + "'; a submitter counts for one group only: list it in one of them."));
                    }
                }
            }
        }
        for (String setting : List.of("shares", "maxRunning")) {
            Map<String, ?> m = setting.equals("shares") ? spec.shares() : spec.maxRunning();
            if (m == null) {
                continue;
            }
            for (String name : new TreeMap<>(m).keySet()) {
                if (seen.containsKey(name)) {
                    return Optional.of(new Problem(
                            setting + "." + name,
                            "'" + name + "' is a member of group '" + seen.get(name) + "', so its jobs count for '"
                                    + seen.get(name) + "' and this " + setting + " entry would never apply; set it on '"
                                    + seen.get(name) + "' instead, or take '" + name + "' out of the group."));
                }
            }
        }
        return Optional.empty();
    }
}
