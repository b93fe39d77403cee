"""Sweeps the manager runs ("algorithm": "optuna"): server-side TPE with Hyperband pruning against server-side
random search (no pruning) at the same trial budget, on the same warm persistent workers, per seed: the best
objective, the trial-seconds the sweep's trials ran (its cost.busySeconds) and the trials pruned. No client drives
anything: each study is one POST, then polled until it ends. Also the idle time the sweep held (its
processors waiting for the driver's next trial: cost.idleSeconds). Prints each run on stderr, then one JSON line with
the medians (bench/run --sweeps reads it).
Usage: optuna_server.py [TRIALS] [SEEDS] [WORKLOAD] (WARMPOOL_URL, WARMPOOL_TOKEN; a manager with the local runtime).
Workloads (clients/python/examples):
  quadratic  a noisy bowl over [-10, 10]^2 (minimum near -0.007), 5 steps of 0.3 s, each reporting a loss that
             falls towards the final one (the default)
  digits     scikit-learn's SVC on its digits (train_digits.py), C and gamma log-uniform, scored by 3-fold
             cross-validation, each fold a step reporting the mean accuracy so far (needs python3-sklearn)"""
import json
import os
import statistics
import sys
import time

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))
sys.path.insert(0, HERE)
import warmpool  # noqa: E402

# per workload: its script, its space (one-value choices fix its steps), its objective and its steps
WORKLOADS = {
    "quadratic": ("quadratic.py", {"x": {"uniform": [-10, 10]}, "y": {"uniform": [-10, 10]},
                                   "steps": {"choice": [5]}, "step_seconds": {"choice": [0.3]}},
                  {"metric": "loss", "goal": "minimize"}, 5),
    "digits": ("train_digits.py", {"C": {"logUniform": [1e-2, 1e3]}, "gamma": {"logUniform": [1e-5, 1e1]}},
               {"metric": "accuracy", "goal": "maximize"}, 3),
}


def modes(steps):
    return {
        "tpe+hyperband": {"sampler": {"name": "TPESampler"},
                          "pruner": {"name": "HyperbandPruner", "args": {"min_resource": 1, "max_resource": steps}}},
        "random": {"sampler": {"name": "RandomSampler"}},
    }


MODES = ("tpe+hyperband", "random")
FIGURES = ("best", "busySeconds", "idleSeconds", "pruned", "wallSeconds")


def study(wp, pool, space, objective, trials, seed, mode):
    s = wp.sweep(pool, space, algorithm="optuna", trials=trials, parallelism=4, seed=seed, objective=objective, **mode)
    start = time.monotonic()
    while s.refresh().state == "RUNNING" or (s.data.get("driver") or {}).get("state") in ("QUEUED", "RUNNING"):
        time.sleep(0.25)
    if s.state != "SUCCEEDED":
        raise SystemExit("sweep %s ended %s: %s" % (s.id, s.state, s.data.get("error")))
    return {"best": (s.best or {}).get("value"), "busySeconds": s.cost.get("busySeconds"),
            "idleSeconds": s.cost.get("idleSeconds"),
            "pruned": s.progress.get("earlyStopped"), "state": s.state,
            "driver": (s.data.get("driver") or {}).get("state"), "wallSeconds": round(time.monotonic() - start, 1)}


def main():
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    workload = sys.argv[3] if len(sys.argv) > 3 else "quadratic"
    if workload not in WORKLOADS:
        raise SystemExit("no workload %r: there are %s" % (workload, ", ".join(WORKLOADS)))
    script, space, objective, steps = WORKLOADS[workload]
    pool = "b-optuna-" + workload
    wp = warmpool.Client()
    wp.put_pool(pool, command=[sys.executable, os.path.join(HERE, "examples", script)],
                worker="persistent", min_idle=4, max_size=4, env={"PYTHONPATH": HERE})
    runs = {m: [] for m in MODES}
    try:
        for seed in range(seeds):
            for mode in MODES:
                run = study(wp, pool, space, objective, trials, seed, modes(steps)[mode])
                print(workload, "seed", seed, mode, json.dumps(run), file=sys.stderr, flush=True)
                runs[mode].append(run)
    finally:
        wp.delete_pool(pool)
    out = {"workload": workload, "goal": objective["goal"], "trials": trials, "seeds": seeds}
    for m, rs in runs.items():
        for k in FIGURES:
            out["%s.%s" % (m, k)] = statistics.median(r[k] for r in rs)
        out[m + ".bestBySeed"] = ", ".join("%.4g" % r["best"] for r in rs)
        out[m + ".prunedBySeed"] = ", ".join(str(r["pruned"]) for r in rs)
    out["trialSecondsSaved"] = round(1 - out["tpe+hyperband.busySeconds"] / out["random.busySeconds"], 3)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
