"""warmpool.optuna.optimize against a running warmpool, with Debian's python3-optuna, on
persistent workers: the study's sampler picks, the trials run warm, the pruner's verdicts end
jobs EARLY_STOPPED on the server."""
import os
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import warmpool  # noqa: E402

try:
    import optuna
except ImportError:  # the suite runs without it; CI installs python3-optuna
    optuna = None

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


@unittest.skipIf(optuna is None, "python3-optuna is not installed")
class OptunaTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.wp = warmpool.Client()
        cls.wp.put_pool("py-optuna", command=[sys.executable, os.path.join(HERE, "examples", "quadratic.py")],
                        worker="persistent", min_idle=2, max_size=2, env={"PYTHONPATH": HERE})
        optuna.logging.set_verbosity(optuna.logging.WARNING)

    @classmethod
    def tearDownClass(cls):
        cls.wp.close()

    def test_progress_shows_the_trials_told_and_the_best_value_as_they_come(self):
        import contextlib
        import io
        from warmpool.optuna import optimize
        study = optuna.create_study(direction="minimize", sampler=optuna.samplers.RandomSampler(seed=3))
        space = {"x": optuna.distributions.FloatDistribution(-5, 5), "y": optuna.distributions.FloatDistribution(-5, 5)}
        shown = io.StringIO()
        with contextlib.redirect_stderr(shown):
            optimize(study, self.wp, "py-optuna", space, objective="loss", n_trials=4, parallelism=2,
                     config={"steps": 1, "step_seconds": 0.01}, progress=True)
        text = shown.getvalue()
        self.assertIn("4/4", text)
        self.assertIn("best", text)
        quiet = io.StringIO()
        with contextlib.redirect_stderr(quiet):
            optimize(study, self.wp, "py-optuna", space, objective="loss", n_trials=1, parallelism=1,
                     config={"steps": 1, "step_seconds": 0.01})
        self.assertNotIn("1/1", quiet.getvalue(), "no bar unless asked")

    def test_a_tpe_study_runs_on_warm_workers_and_its_pruner_stops_trials(self):
        from warmpool.optuna import optimize
        study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=7),
                                    pruner=optuna.pruners.MedianPruner(n_startup_trials=4, n_warmup_steps=1))
        space = {"x": optuna.distributions.FloatDistribution(-5, 5), "y": optuna.distributions.FloatDistribution(-5, 5)}
        optimize(study, self.wp, "py-optuna", space, objective="loss", n_trials=24, parallelism=2,
                 config={"steps": 6, "step_seconds": 0.05})
        states = [t.state for t in study.trials]
        self.assertEqual(24, len(states))
        complete = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
        pruned = [t for t in study.trials if t.state == optuna.trial.TrialState.PRUNED]
        self.assertEqual(24, len(complete) + len(pruned), states)
        self.assertGreater(len(pruned), 0, "the median pruner stops some trials mid-run")
        self.assertLess(study.best_value, 4.0)
        for t in pruned[:3]:
            job = self.wp.job(t.user_attrs["warmpool_job"])
            self.assertEqual("EARLY_STOPPED", job.state)
            self.assertIn("pruned by the Optuna study", job.data["error"])
        for t in complete[:3]:
            job = self.wp.job(t.user_attrs["warmpool_job"])
            self.assertEqual({"x": t.params["x"], "y": t.params["y"], "steps": 6, "step_seconds": 0.05},
                             job.data["config"])
            self.assertAlmostEqual(t.value, job.metrics["loss"])
        # the study's trials were an external sweep's: it shows what the study did, as any sweep does
        sweep = self.wp.get_sweep(study.user_attrs["warmpool_sweep"])
        self.assertEqual("external", sweep.data["spec"]["algorithm"])
        self.assertEqual("SUCCEEDED", sweep.state, "ended with its last trial")
        self.assertEqual(24, sweep.progress["done"])
        self.assertEqual(len(pruned), sweep.progress["earlyStopped"])
        self.assertAlmostEqual(study.best_value, sweep.best["value"])
        self.assertEqual(24, sweep.cost["trials"])
        self.assertEqual(sorted(t.user_attrs["warmpool_job"] for t in study.trials),
                         sorted(t["id"] for t in sweep.trials()))

    def test_a_study_cut_short_cancels_its_sweep_and_the_trials_still_out(self):
        from warmpool.optuna import optimize
        study = optuna.create_study(direction="minimize", sampler=optuna.samplers.RandomSampler(seed=5))
        space = {"x": optuna.distributions.FloatDistribution(-5, 5), "y": optuna.distributions.FloatDistribution(-5, 5)}
        optimize(study, self.wp, "py-optuna", space, objective="loss", n_trials=6, parallelism=1, timeout=1.0,
                 config={"steps": 4, "step_seconds": 0.5})
        sweep = self.wp.get_sweep(study.user_attrs["warmpool_sweep"])
        self.assertEqual("CANCELLED", sweep.state)
        self.assertGreater(len(sweep.trials()), 0)
        for t in sweep.trials():
            self.assertNotIn(t["state"], ("PENDING", "QUEUED", "ASSIGNED", "RUNNING"), t)

    def test_a_study_in_the_sweeps_journal_survives_its_driver_killed_three_times(self):
        n = 16
        sweep = self.wp.sweep("py-optuna", algorithm="external", trials=n, parallelism=2,
                              objective={"metric": "loss", "goal": "minimize"})
        driver = [sys.executable, os.path.join(HERE, "tests", "optuna_driver.py"), sweep.id, str(n), "11"]
        for done in (3, 7, 11):  # kill the driver once that many trials have ended, then start it again
            proc = subprocess.Popen(driver, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            try:
                deadline = time.monotonic() + 120
                while sweep.refresh().progress["done"] < done:
                    self.assertIsNone(proc.poll(), "the driver ended early: %s" % proc.stdout.read().decode())
                    self.assertLess(time.monotonic(), deadline, "no progress: %s" % sweep.progress)
                    time.sleep(0.05)
            finally:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                proc.stdout.close()
        last = subprocess.run(driver, capture_output=True, text=True, timeout=180)
        self.assertEqual(0, last.returncode, last.stdout + last.stderr)
        sweep.refresh()
        self.assertEqual("SUCCEEDED", sweep.state)
        self.assertEqual(n, sweep.progress["done"], "no trial lost")
        trials = sweep.trials()
        self.assertEqual(n, len(trials), "none added twice")
        from warmpool.optuna import journal
        study = optuna.load_study(study_name=sweep.id, storage=journal(sweep))
        ours = [t for t in study.trials if t.user_attrs.get("warmpool_sweep") == sweep.id]
        told = [t for t in ours if t.state.is_finished()]
        self.assertEqual(n, len(told), [(t.number, t.state) for t in study.trials])
        self.assertEqual(sorted(t["id"] for t in trials), sorted(t.user_attrs["warmpool_job"] for t in told),
                         "every trial of the sweep told once in the study")
        by_id = {t["id"]: t for t in trials}
        for t in told:
            if t.state == optuna.trial.TrialState.COMPLETE:
                self.assertAlmostEqual(t.value, by_id[t.user_attrs["warmpool_job"]]["metrics"]["loss"])
