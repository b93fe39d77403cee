"""A study's driver for test_optuna's chaos test: the study lives in the sweep's journal, so this
same script, started again after it was killed, goes on where the killed one stopped.

    python3 optuna_driver.py <sweep id> <n trials> <seed>
"""
import os
import sys

import optuna

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import warmpool  # noqa: E402
from warmpool.optuna import journal, optimize  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.WARNING)
wp = warmpool.Client()
sweep = wp.get_sweep(sys.argv[1])
study = optuna.create_study(study_name=sweep.id, storage=journal(sweep), load_if_exists=True, direction="minimize",
                            sampler=optuna.samplers.TPESampler(seed=int(sys.argv[3])))
space = {"x": optuna.distributions.FloatDistribution(-5, 5), "y": optuna.distributions.FloatDistribution(-5, 5)}
optimize(study, wp, "py-optuna", space, objective="loss", n_trials=int(sys.argv[2]), parallelism=2,
         config={"steps": 2, "step_seconds": 0.1}, sweep=sweep)
print("told", len(study.trials), flush=True)
