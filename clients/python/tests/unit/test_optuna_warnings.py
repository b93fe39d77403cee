"""warmpool.optuna.optimize against the stub: a study whose objective no trial reports warns once, as a
sweep does, instead of failing every trial with the reason only in its user_attrs."""
import itertools
import json
import warnings

import warmpool

from .base import StubTestCase
from .stub import events, ok

try:
    import optuna
    HAVE_OPTUNA = True
except ImportError:  # the suite runs without it; CI installs python3-optuna
    HAVE_OPTUNA = False


class OptunaWarningTests(StubTestCase):
    def setUp(self) -> None:
        super().setUp()
        if not HAVE_OPTUNA:
            self.skipTest("python3-optuna is not installed")
        optuna.logging.set_verbosity(optuna.logging.ERROR)

    def serve(self, metrics):
        """Every job submitted succeeds at once with ``metrics``."""
        ids = itertools.count()

        def submit(req):
            return ok({"id": "t.%d" % next(ids), "state": "QUEUED", "config": req.body["config"]}, 201)

        def job(req):
            jid = req.route.split("/")[2]
            ended = {"id": jid, "state": "SUCCEEDED", "ended": True, "result": {"metrics": metrics}}
            if req.route.endswith("/events"):
                return events("id: 1-0\nevent: end\ndata: %s\n\n" % json.dumps(ended))
            return ok(ended)

        self.stub.route("POST", "/jobs", submit)
        self.stub.default = job

    def optimize(self, objective, n_trials):
        from warmpool.optuna import optimize
        study = optuna.create_study(study_name="s1", direction="minimize", sampler=optuna.samplers.RandomSampler(seed=1))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            optimize(study, self.wp, "t", {"x": optuna.distributions.FloatDistribution(-1, 1)}, objective=objective,
                     n_trials=n_trials, parallelism=2, sweep=False)
        return study, [w for w in caught if issubclass(w.category, warmpool.SweepWarning)]

    def test_a_mistyped_objective_warns_once_naming_the_metrics_the_trials_reported(self):
        self.serve({"loss": 0.5, "acc": 0.9})
        study, said = self.optimize("los", 6)
        self.assertEqual(1, len(said), [str(w.message) for w in said])
        text = str(said[0].message)
        self.assertIn("study s1", text)
        self.assertIn("'los'", text)
        self.assertIn("acc, loss", text)
        self.assertEqual({optuna.trial.TrialState.FAIL}, {t.state for t in study.trials})

    def test_an_objective_reported_only_as_nan_warns_after_every_trial_when_there_are_fewer_than_three(self):
        self.serve({"loss": "NaN"})
        _, said = self.optimize("loss", 2)
        self.assertEqual(1, len(said))
        self.assertIn("only as NaN", str(said[0].message))

    def test_a_reported_objective_says_nothing(self):
        self.serve({"loss": 0.5})
        study, said = self.optimize("loss", 4)
        self.assertEqual([], said)
        self.assertEqual(0.5, study.best_value)
