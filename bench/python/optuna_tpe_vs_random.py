"""Optuna's TPE sampler against random search on the same objective, both on the same warm
persistent workers through warmpool.optuna.optimize: the best loss after N trials, per seed.
Prints one JSON object. Usage: optuna_tpe_vs_random.py [TRIALS] [SEEDS] (WARMPOOL_URL, WARMPOOL_TOKEN).
The objective is clients/python/examples/quadratic.py (a noisy bowl, minimum near x=2, y=-1)."""
import json
import os
import statistics
import sys

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))
sys.path.insert(0, HERE)
import optuna  # noqa: E402

import warmpool  # noqa: E402
from warmpool.optuna import optimize  # noqa: E402


def main():
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    wp = warmpool.Client()
    wp.put_pool("b-optuna", command=[sys.executable, os.path.join(HERE, "examples", "quadratic.py")],
                worker="persistent", min_idle=4, max_size=4, env={"PYTHONPATH": HERE})
    space = {"x": optuna.distributions.FloatDistribution(-10, 10),
             "y": optuna.distributions.FloatDistribution(-10, 10)}
    best = {"tpe": [], "random": []}
    for seed in range(seeds):
        for name, sampler in (("tpe", optuna.samplers.TPESampler(seed=seed)),
                              ("random", optuna.samplers.RandomSampler(seed=seed))):
            study = optuna.create_study(direction="minimize", sampler=sampler)
            optimize(study, wp, "b-optuna", space, objective="loss", n_trials=trials, parallelism=4,
                     config={"steps": 1, "step_seconds": 0})
            best[name].append(study.best_value)
    wp.delete_pool("b-optuna")
    out = {"trials": trials, "seeds": seeds}
    for name, values in best.items():
        out[name + ".bestLoss.median"] = statistics.median(values)
        out[name + ".bestLoss.bySeed"] = [round(v, 4) for v in values]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
