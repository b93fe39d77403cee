package dev.warmpool.sweep;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Optuna samplers and pruners a server-side sweep ({@code "algorithm": "optuna"}) may name, by
 * Optuna's own class names, each with the keyword arguments it takes that JSON can carry (Optuna
 * 3.1, Debian's; an argument that is a function or another sampler is left out). A name or an
 * argument not here is refused when the sweep is submitted, with the list of what there is; the
 * values themselves are Optuna's to check, and a wrong one fails the sweep's driver with Optuna's words.
 */
public final class OptunaCatalogue {
    /** A sampler's or pruner's part of a sweep: its class name and keyword arguments. */
    public record Part(String name, JsonNode args) {}

    static final Map<String, List<String>> SAMPLERS = new TreeMap<>(Map.of(
            "TPESampler",
            List.of(
                    "consider_prior",
                    "prior_weight",
                    "consider_magic_clip",
                    "consider_endpoints",
                    "n_startup_trials",
                    "n_ei_candidates",
                    "seed",
                    "multivariate",
                    "group",
                    "warn_independent_sampling",
                    "constant_liar"),
            "RandomSampler",
            List.of("seed"),
            "CmaEsSampler",
            List.of(
                    "x0",
                    "sigma0",
                    "n_startup_trials",
                    "warn_independent_sampling",
                    "seed",
                    "consider_pruned_trials",
                    "restart_strategy",
                    "popsize",
                    "inc_popsize",
                    "use_separable_cma",
                    "with_margin"),
            "QMCSampler",
            List.of("qmc_type", "scramble", "seed", "warn_asynchronous_seeding", "warn_independent_sampling"),
            "GridSampler",
            List.of("search_space", "seed"),
            "BruteForceSampler",
            List.of("seed"),
            "NSGAIISampler",
            List.of("population_size", "mutation_prob", "crossover_prob", "swapping_prob", "seed")));

    static final Map<String, List<String>> PRUNERS = new TreeMap<>(Map.of(
            "MedianPruner",
            List.of("n_startup_trials", "n_warmup_steps", "interval_steps", "n_min_trials"),
            "PercentilePruner",
            List.of("percentile", "n_startup_trials", "n_warmup_steps", "interval_steps", "n_min_trials"),
            "SuccessiveHalvingPruner",
            List.of("min_resource", "reduction_factor", "min_early_stopping_rate", "bootstrap_count"),
            "HyperbandPruner",
            List.of("min_resource", "max_resource", "reduction_factor", "bootstrap_count"),
            "ThresholdPruner",
            List.of("lower", "upper", "n_warmup_steps", "interval_steps"),
            "NopPruner",
            List.of()));

    private OptunaCatalogue() {}

    /** Why {@code part} (the request's {@code field}: "sampler" or "pruner") cannot be, or null when it can. */
    public static Problem check(String field, Part part) {
        Map<String, List<String>> known = "sampler".equals(field) ? SAMPLERS : PRUNERS;
        String kind = "sampler".equals(field) ? "sampler" : "pruner";
        if (part.name() == null || part.name().isBlank()) {
            return new Problem(
                    field + ".name",
                    "'" + field + ".name' names an Optuna " + kind + " class, one of: "
                            + String.join(", ", known.keySet()) + ".");
        }
        List<String> args = known.get(part.name());
        if (args == null) {
            return new Problem(
                    field + ".name",
                    "'" + part.name() + "' is not an Optuna " + kind + " a sweep can use; use one of: "
                            + String.join(", ", known.keySet()) + ".");
        }
        if (part.args() == null || part.args().isNull()) {
            return null;
        }
        if (!part.args().isObject()) {
            return new Problem(
                    field + ".args",
                    "'" + field + ".args' holds " + part.name() + "'s keyword arguments as an object, e.g. {"
                            + (args.isEmpty() ? "" : "\"" + args.get(0) + "\": ...") + "}.");
        }
        List<String> unknown = new ArrayList<>();
        for (Iterator<String> names = part.args().fieldNames(); names.hasNext(); ) {
            String n = names.next();
            if (!args.contains(n)) {
                unknown.add(n);
            }
        }
        if (!unknown.isEmpty()) {
            return new Problem(
                    field + ".args." + unknown.get(0),
                    part.name() + " takes no argument '" + unknown.get(0) + "' here; it takes: "
                            + (args.isEmpty() ? "none" : String.join(", ", args)) + ".");
        }
        return null;
    }

    /** A field of the request and a sentence about it. */
    public record Problem(String field, String detail) {}
}
