"""What the client does with values, against the stub: non-finite metrics back as floats,
numpy, dates and paths in configs, errors in the caller's words, timeout=, the CLI's cancel."""
import contextlib
import datetime
import io
import json
import math
import os
import pathlib
import unittest
import warnings

import warmpool
from warmpool.__main__ import main
from warmpool.client import Event  # its old home: still importable from there
from warmpool.objects import Job, Sweep

from .base import StubTestCase
from .stub import Reply

try:
    import numpy
    HAVE_NUMPY = True
except ImportError:  # Debian's python3 without python3-numpy: the numpy case is skipped, the rest runs
    HAVE_NUMPY = False


def accepted(method, path, body):  # what the tests' stand-in answered: (status, JSON)
    job = {"id": "t.1", "state": "SUCCEEDED"}  # ended: the client's waiter has nothing to wait for
    return 202, {"jobs": [job] * len(body["jobs"])} if path == "/jobs/batch" else job


class NonFiniteTests(StubTestCase):
    def test_a_job_s_nan_and_infinities_come_back_as_floats(self):
        job = Job(self.wp, {"id": "t.1", "state": "SUCCEEDED", "progress": {"step": 2, "loss": "-Infinity"},
                         "result": {"metrics": {"loss": "NaN", "big": "Infinity", "ok": 0.5, "name": "adam"}}})
        metrics, progress = job.metrics or {}, job.progress or {}
        self.assertTrue(math.isnan(metrics["loss"]))
        self.assertEqual(math.inf, metrics["big"])
        self.assertEqual(0.5, metrics["ok"])
        self.assertEqual("adam", metrics["name"], "other strings stay strings")
        self.assertEqual(-math.inf, progress["loss"])
        self.assertTrue(math.isnan(job.result(timeout=0)["loss"]))

    def test_a_sweep_s_trials_and_report_events_carry_floats(self):
        sweep = Sweep(self.wp, {"id": "s.1", "state": "SUCCEEDED", "trials": [
            {"id": "s.1-0", "metrics": {"loss": "Infinity"}, "progress": {"step": 1, "loss": ["NaN", 1]}}]})
        t = sweep.trials()[0]
        self.assertEqual(math.inf, t["metrics"]["loss"])
        self.assertTrue(math.isnan(t["progress"]["loss"][0]))
        self.assertEqual("Infinity", sweep.data["trials"][0]["metrics"]["loss"], "the data stays as the API sent it")
        self.assertTrue(math.isnan(Event("report", "1-0", '{"step": 1, "loss": "NaN"}').data["loss"]))


class SweepWarningTests(StubTestCase):
    def test_a_sweep_s_warning_is_a_python_warning_once_and_shows_in_repr(self):
        data = {"id": "s.2", "state": "RUNNING", "progress": {"done": 3, "total": 8},
                "warnings": ["None of the first 3 trials that succeeded reported the objective metric 'los'"]}
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            sweep = Sweep(self.wp, data)
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
                Sweep(self.wp, {"id": "s.3", "state": "SUCCEEDED", "warnings": ["no objective"]})


class RequestTests(StubTestCase):
    def client(self, answer=accepted):
        self.stub.default = lambda req: Reply(*answer(req.method, req.path, req.body))
        return super().client(retries=0)

    def test_dates_paths_sets_and_non_finite_floats_in_a_config_are_sent_as_json(self):
        wp = self.client()
        wp.submit("x", config={"when": datetime.datetime(2026, 12, 6, 3, 0, 1), "day": datetime.date(2026, 12, 6),
                               "data": pathlib.Path("/data/train.csv"), "pair": (1, 2), "tags": {"b", "a"},
                               "lr": float("nan"), "clip": float("-inf"), 3: "int key"})
        config = self.stub.requests[-1].body["config"]
        self.assertEqual("2026-12-06T03:00:01", config["when"])
        self.assertEqual("2026-12-06", config["day"])
        self.assertEqual("/data/train.csv", config["data"])
        self.assertEqual([1, 2], config["pair"])
        self.assertEqual(["a", "b"], config["tags"])
        self.assertEqual(["NaN", "-Infinity"], [config["lr"], config["clip"]], "the API's one form, strict JSON")
        self.assertEqual("int key", config["3"])

    @unittest.skipUnless(HAVE_NUMPY, "numpy is not installed for this python")
    def test_numpy_scalars_and_arrays_in_a_config_are_sent_as_numbers_and_lists(self):
        wp = self.client()
        wp.submit("x", config={"layers": numpy.int64(4), "lr": numpy.float32(0.5), "on": numpy.bool_(True),
                               "grid": numpy.arange(6).reshape(2, 3), "w": numpy.array([1.5, numpy.nan])})
        config = self.stub.requests[-1].body["config"]
        self.assertEqual({"layers": 4, "lr": 0.5, "on": True, "grid": [[0, 1, 2], [3, 4, 5]], "w": [1.5, "NaN"]}, config)

    def test_what_json_cannot_carry_is_a_type_error_naming_it(self):
        wp = self.client()
        with self.assertRaises(TypeError) as e:
            wp.submit("x", config={"model": object()})
        self.assertIn("object", str(e.exception))

    def test_timeout_is_the_job_s_timeout_seconds_and_not_both(self):
        wp = self.client()
        wp.submit("x", timeout=30)
        self.assertEqual(30, self.stub.requests[-1].body["timeoutSeconds"])
        self.assertNotIn("timeout", self.stub.requests[-1].body)
        wp.map("x", [{}, {}], timeout=40)
        self.assertEqual([40, 40], [j["timeoutSeconds"] for j in self.stub.requests[-1].body["jobs"]])
        with self.assertRaises(TypeError):
            wp.submit("x", timeout=30, timeout_seconds=30)

    def test_an_error_names_the_field_as_the_caller_wrote_it(self):
        def refuse(method, path, body):
            field = next(k for k in body if k not in ("type", "command"))
            return 400, {"type": "https://warmpool.dev/problems/invalid-request", "status": 400, "field": field,
                         "detail": "Field '%s' must be 1 or more." % field}
        wp = self.client(refuse)
        with self.assertRaises(warmpool.Invalid) as e:
            wp.put_pool("p", command=["true"], idle_timeout_seconds=0)
        self.assertEqual("idle_timeout_seconds", e.exception.field)
        self.assertIn("'idle_timeout_seconds'", e.exception.detail)
        with self.assertRaises(warmpool.Invalid) as e:
            wp.submit("x", timeout=0)
        self.assertEqual("timeout", e.exception.field)
        with self.assertRaises(warmpool.Invalid) as e:
            wp.submit("x", maxAttempts=0)
        self.assertEqual("maxAttempts", e.exception.field, "camelCase when the caller wrote camelCase")

    def test_an_unknown_keyword_s_error_names_the_known_fields_as_the_caller_writes_them(self):
        def refuse(method, path, body):
            field = next(k for k in body if k not in ("type", "command"))
            known = ["command", "env", "idleTimeoutSeconds", "maxSize", "minIdle"]
            return 400, {"type": "https://warmpool.dev/problems/invalid-request", "status": 400, "field": field,
                         "detail": "Unknown field '%s'; known fields are %s." % (field, ", ".join(known)),
                         "knownFields": known}
        wp = self.client(refuse)
        with self.assertRaises(warmpool.Invalid) as e:
            wp.put_pool("p", command=["true"], min_idel=1)
        self.assertEqual("min_idel", e.exception.field)
        self.assertEqual("Unknown field 'min_idel'; known fields are command, env, idle_timeout_seconds, max_size, "
                         "min_idle.", e.exception.detail)
        with self.assertRaises(warmpool.Invalid) as e:
            wp.put_pool("p", command=["true"], minidle=1)
        self.assertIn("known fields are command, env, idle_timeout_seconds, max_size, min_idle.", e.exception.detail)
        with self.assertRaises(warmpool.Invalid) as e:
            wp.put_pool("p", command=["true"], minIdel=1)
        self.assertIn("'minIdel'; known fields are command, env, idleTimeoutSeconds, maxSize, minIdle.",
                      e.exception.detail, "camelCase when the caller wrote camelCase")

    def test_the_cli_cancels_a_sweep_or_else_a_job_by_its_id(self):
        def answer(method, path, body):
            if path.startswith("/sweeps/s.1"):
                return 200, {"id": "s.1", "state": "CANCELLED"}
            if path.startswith("/sweeps/"):
                return 404, {"status": 404, "detail": "There is no sweep"}
            return 200, {"id": "j.1", "state": "CANCELLED"}
        self.client(answer)
        os.environ["WARMPOOL_URL"], os.environ["WARMPOOL_TOKEN"] = self.stub.url, "t"
        try:
            for id in ("s.1", "j.1"):
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    self.assertEqual(0, main(["cancel", id]))
                self.assertEqual("CANCELLED", json.loads(out.getvalue())["state"])
        finally:
            del os.environ["WARMPOOL_URL"], os.environ["WARMPOOL_TOKEN"]
        self.assertEqual([("DELETE", "/sweeps/s.1"), ("DELETE", "/sweeps/j.1"), ("DELETE", "/jobs/j.1")],
                         [(r.method, r.path) for r in self.stub.requests])


if __name__ == "__main__":
    unittest.main()
