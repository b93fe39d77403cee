"""Sweeps the manager runs ("algorithm": "optuna"): server-side TPE with Hyperband pruning against server-side
random search (no pruning) at the same trial budget, on the same warm persistent workers, per seed: the best
loss, the trial-seconds the sweep's trials ran (its cost.busySeconds) and the trials pruned. No client drives
anything: each study is one POST, then polled until it ends. Prints one JSON object with the medians.
Usage: optuna_server.py [TRIALS] [SEEDS] (WARMPOOL_URL, WARMPOOL_TOKEN; a manager with the local runtime).
The objective is clients/python/examples/quadratic.py (a noisy bowl over [-10, 10]^2, minimum near -0.007),
5 steps of 0.3 s each, each step reporting a loss that falls towards the final one."""
import json
import os
import statistics
import sys
import time

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))
sys.path.insert(0, HERE)
import warmpool  # noqa: E402

POOL = "b-optuna-server"
# steps and their length as one-value choices: every trial 5 steps of 0.3 s (a trial the pruner can stop mid-run)
SPACE = {"x": {"uniform": [-10, 10]}, "y": {"uniform": [-10, 10]}, "steps": {"choice": [5]},
         "step_seconds": {"choice": [0.3]}}
MODES = {
    "tpe+hyperband": {"sampler": {"name": "TPESampler"},
                      "pruner": {"name": "HyperbandPruner", "args": {"min_resource": 1, "max_resource": 5}}},
    "random": {"sampler": {"name": "RandomSampler"}},
}


def study(wp, trials, seed, mode):
    s = wp.sweep(POOL, SPACE, algorithm="optuna", trials=trials, parallelism=4, seed=seed,
                 objective={"metric": "loss", "goal": "minimize"}, **MODES[mode])
    start = time.monotonic()
    while s.refresh().state == "RUNNING" or (s.data.get("driver") or {}).get("state") in ("QUEUED", "RUNNING"):
        time.sleep(0.25)
    return {"best": (s.best or {}).get("value"), "busySeconds": s.cost.get("busySeconds"),
            "pruned": s.progress.get("earlyStopped"), "state": s.state,
            "driver": (s.data.get("driver") or {}).get("state"), "wallSeconds": round(time.monotonic() - start, 1)}


def main():
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    wp = warmpool.Client()
    wp.put_pool(POOL, command=[sys.executable, os.path.join(HERE, "examples", "quadratic.py")],
                worker="persistent", min_idle=4, max_size=4, env={"PYTHONPATH": HERE})
    runs = {m: [] for m in MODES}
    try:
        for seed in range(seeds):
            for mode in MODES:
                runs[mode].append(study(wp, trials, seed, mode))
    finally:
        wp.delete_pool(POOL)
    out = {"trials": trials, "seeds": seeds, "runs": runs, "median": {
        m: {k: statistics.median(r[k] for r in rs) for k in ("best", "busySeconds", "pruned", "wallSeconds")}
        for m, rs in runs.items()}}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
