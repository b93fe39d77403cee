"""What the client does with values, without a server: non-finite metrics back as floats."""
import math
import os
import sys
import unittest
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import warmpool  # noqa: E402
from warmpool.client import Event  # noqa: E402
from warmpool.objects import Job, Sweep  # noqa: E402


class NonFiniteTests(unittest.TestCase):
    def test_a_job_s_nan_and_infinities_come_back_as_floats(self):
        job = Job(None, {"id": "t.1", "state": "SUCCEEDED", "progress": {"step": 2, "loss": "-Infinity"},
                         "result": {"metrics": {"loss": "NaN", "big": "Infinity", "ok": 0.5, "name": "adam"}}})
        self.assertTrue(math.isnan(job.metrics["loss"]))
        self.assertEqual(math.inf, job.metrics["big"])
        self.assertEqual(0.5, job.metrics["ok"])
        self.assertEqual("adam", job.metrics["name"], "other strings stay strings")
        self.assertEqual(-math.inf, job.progress["loss"])
        self.assertTrue(math.isnan(job.result(timeout=0)["loss"]))

    def test_a_sweep_s_trials_and_report_events_carry_floats(self):
        sweep = Sweep(None, {"id": "s.1", "state": "SUCCEEDED", "trials": [
            {"id": "s.1-0", "metrics": {"loss": "Infinity"}, "progress": {"step": 1, "loss": ["NaN", 1]}}]})
        t = sweep.trials()[0]
        self.assertEqual(math.inf, t["metrics"]["loss"])
        self.assertTrue(math.isnan(t["progress"]["loss"][0]))
        self.assertEqual("Infinity", sweep.data["trials"][0]["metrics"]["loss"], "the data stays as the API sent it")
        self.assertTrue(math.isnan(Event("report", "1-0", '{"step": 1, "loss": "NaN"}').data["loss"]))


class SweepWarningTests(unittest.TestCase):
    def test_a_sweep_s_warning_is_a_python_warning_once_and_shows_in_repr(self):
        data = {"id": "s.2", "state": "RUNNING", "progress": {"done": 3, "total": 8},
                "warnings": ["None of the first 3 trials that succeeded reported the objective metric 'los'"]}
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            sweep = Sweep(None, data)
            sweep.data = dict(data, state="SUCCEEDED")
        self.assertEqual(1, len(seen), [str(w.message) for w in seen])
        self.assertIs(warmpool.SweepWarning, seen[0].category)
        self.assertIn("'los'", str(seen[0].message))
        self.assertIn("1 warning", repr(sweep))
        self.assertEqual(data["warnings"], sweep.warnings)

    def test_a_sweep_s_warning_can_be_made_an_error(self):
        with warnings.catch_warnings():
            warnings.simplefilter("error", warmpool.SweepWarning)
            with self.assertRaises(warmpool.SweepWarning):
                Sweep(None, {"id": "s.3", "state": "SUCCEEDED", "warnings": ["no objective"]})


if __name__ == "__main__":
    unittest.main()
