"""A server-side sweep's driver: ``python3 -m warmpool.driver``, run by warmpool as a job of its driver
pool for a sweep submitted with ``"algorithm": "optuna"`` (docs/sweeps.md). It reads the sweep from its
config (``WARMPOOL_CONFIG``: the sweep's id, pool, space, objective, trials, parallelism, seed, sampler
and pruner), keeps the Optuna study in the sweep's journal and runs it with
:func:`warmpool.optuna.optimize` on the sweep: a retry of this job (or another driver) takes the study up
where it was left. It reaches the API through the way its agent opened for it alone (``WARMPOOL_URL``, a
Unix socket in its own dir) with a token that is good for its sweep only (``WARMPOOL_TOKEN``).

The job's process supervises the study's: the study runs in a child process, started again (up to
``RESTARTS`` times) when it is killed or crashes, and each start takes the study up from the journal.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any, Dict, Mapping

from .client import Client
from .optuna import journal, optimize

__all__ = ["distributions", "main", "supervise"]

RESTARTS = 3
"""How many times the study's process is started again after it was killed or crashed."""
CHILD = "WARMPOOL_DRIVER_CHILD"
"""Set in the study's process's environment (the supervisor's child)."""


def distributions(space: Mapping[str, Mapping[str, Any]]) -> Dict[str, Any]:
    """A sweep's space (``{"lr": {"logUniform": [1e-4, 0.1]}, ...}``) as Optuna distributions."""
    import optuna.distributions as d

    out: Dict[str, Any] = {}
    for name, spec in space.items():
        (kind, values), = spec.items()
        if kind in ("grid", "choice"):
            out[name] = d.CategoricalDistribution(list(values))
        elif kind == "uniform":
            out[name] = d.FloatDistribution(float(values[0]), float(values[1]))
        elif kind == "logUniform":
            out[name] = d.FloatDistribution(float(values[0]), float(values[1]), log=True)
        elif kind == "int":
            out[name] = d.IntDistribution(int(values[0]), int(values[1]))
        else:
            raise ValueError("parameter %r: %r is not a kind of the sweep's space" % (name, kind))
    return out


def _built(module: Any, part: Mapping[str, Any], seed: Any = None) -> Any:
    """``{"name": "TPESampler", "args": {...}}`` as ``module.TPESampler(**args)``, the sweep's seed given to a
    sampler that takes one and was not given one."""
    cls = getattr(module, part["name"])
    args = dict(part.get("args") or {})
    if seed is not None and "seed" not in args:
        import inspect

        if "seed" in inspect.signature(cls).parameters:
            args["seed"] = seed
    return cls(**args)


def main() -> int:
    import optuna

    raw = os.environ.get("WARMPOOL_CONFIG")
    if raw is None and os.environ.get("WARMPOOL_CONFIG_FILE"):
        with open(os.environ["WARMPOOL_CONFIG_FILE"]) as f:
            raw = f.read()
    if not raw or not os.environ.get("WARMPOOL_URL", "").startswith("http+unix://"):
        print("warmpool.driver runs as a sweep's driver job: it needs the sweep in WARMPOOL_CONFIG and the way to "
              "the API its agent opens (WARMPOOL_URL); this runtime or job has neither", file=sys.stderr)
        return 2
    c = json.loads(raw)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    wp = Client()
    sweep = wp.get_sweep(c["sweep"])
    goal = (c.get("objective") or {}).get("goal") or "minimize"
    sampler = _built(optuna.samplers, c.get("sampler") or {"name": "TPESampler"}, c.get("seed"))
    pruner = _built(optuna.pruners, c["pruner"]) if c.get("pruner") else optuna.pruners.NopPruner()
    study = optuna.create_study(study_name=sweep.id, storage=journal(sweep), load_if_exists=True,
                                direction=goal, sampler=sampler, pruner=pruner)
    optimize(study, wp, c["type"], distributions(c["space"]), objective=c["objective"]["metric"],
             n_trials=int(c["trials"]), parallelism=int(c["parallelism"]), sweep=sweep)
    done = [t for t in study.trials if t.user_attrs.get("warmpool_sweep") == sweep.id and t.state.is_finished()]
    try:
        print("told %d trials; best %s = %s" % (len(done), c["objective"]["metric"], study.best_value))
    except ValueError:
        print("told %d trials; none completed" % len(done))
    return 0


def supervise() -> int:
    """Runs :func:`main` in a child process, again when it ends other than done (0) or unable to run here
    (2): at most :data:`RESTARTS` more times. Its exit code is the last run's."""
    env = dict(os.environ)
    env[CHILD] = "1"
    code = 1
    for attempt in range(RESTARTS + 1):
        code = subprocess.call([sys.executable, "-m", "warmpool.driver"], env=env)
        if code in (0, 2):
            return code
        if attempt < RESTARTS:
            print("warmpool.driver: the study's process ended (%s); starting it again, %d of %d: it goes on from the "
                  "sweep's journal" % (code, attempt + 1, RESTARTS), file=sys.stderr, flush=True)
    return code if code > 0 else 1


if __name__ == "__main__":
    code = main() if os.environ.get(CHILD) else supervise()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # not waiting for a trial's follower thread still reading a stream that has nothing more to say
