"""What the client does with values, against a stand-in server: non-finite metrics back as floats,
numpy, dates and paths in configs, errors in the caller's words, timeout=, the CLI's cancel."""
import contextlib
import datetime
import http.server
import io
import json
import math
import os
import pathlib
import sys
import threading
import unittest
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import warmpool  # noqa: E402
from warmpool.client import Event  # noqa: E402
from warmpool.objects import Job, Sweep  # noqa: E402
from warmpool.__main__ import main  # noqa: E402

try:
    import numpy
except ImportError:  # Debian's python3 without python3-numpy: the numpy case is skipped, the rest runs
    numpy = None


class StandIn:
    """A server that records each request (method, path, JSON body) and answers with ``answer(method, path, body)``:
    (status, JSON)."""

    def __init__(self, answer):
        self.seen = []
        stand_in = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def handle_one(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(n)) if n else None
                stand_in.seen.append((self.command, self.path, body))
                status, reply = answer(self.command, self.path, body)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json" if status < 400 else "application/problem+json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = handle_one

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = "http://127.0.0.1:%d" % self.server.server_port

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def accepted(method, path, body):
    job = {"id": "t.1", "state": "SUCCEEDED"}  # ended: the client's waiter has nothing to wait for
    return 202, {"jobs": [job] * len(body["jobs"])} if path == "/jobs/batch" else job


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


class RequestTests(unittest.TestCase):
    def setUp(self):
        self.stand_in = None

    def tearDown(self):
        if self.stand_in:
            self.stand_in.close()

    def client(self, answer=accepted):
        self.stand_in = StandIn(answer)
        return warmpool.Client(self.stand_in.url, token="t", retries=0)

    def test_dates_paths_sets_and_non_finite_floats_in_a_config_are_sent_as_json(self):
        wp = self.client()
        wp.submit("x", config={"when": datetime.datetime(2026, 12, 6, 3, 0, 1), "day": datetime.date(2026, 12, 6),
                               "data": pathlib.Path("/data/train.csv"), "pair": (1, 2), "tags": {"b", "a"},
                               "lr": float("nan"), "clip": float("-inf"), 3: "int key"})
        config = self.stand_in.seen[-1][2]["config"]
        self.assertEqual("2026-12-06T03:00:01", config["when"])
        self.assertEqual("2026-12-06", config["day"])
        self.assertEqual("/data/train.csv", config["data"])
        self.assertEqual([1, 2], config["pair"])
        self.assertEqual(["a", "b"], config["tags"])
        self.assertEqual(["NaN", "-Infinity"], [config["lr"], config["clip"]], "the API's one form, strict JSON")
        self.assertEqual("int key", config["3"])

    @unittest.skipIf(numpy is None, "numpy is not installed for this python")
    def test_numpy_scalars_and_arrays_in_a_config_are_sent_as_numbers_and_lists(self):
        wp = self.client()
        wp.submit("x", config={"layers": numpy.int64(4), "lr": numpy.float32(0.5), "on": numpy.bool_(True),
                               "grid": numpy.arange(6).reshape(2, 3), "w": numpy.array([1.5, numpy.nan])})
        config = self.stand_in.seen[-1][2]["config"]
        self.assertEqual({"layers": 4, "lr": 0.5, "on": True, "grid": [[0, 1, 2], [3, 4, 5]], "w": [1.5, "NaN"]}, config)

    def test_what_json_cannot_carry_is_a_type_error_naming_it(self):
        wp = self.client()
        with self.assertRaises(TypeError) as e:
            wp.submit("x", config={"model": object()})
        self.assertIn("object", str(e.exception))

    def test_timeout_is_the_job_s_timeout_seconds_and_not_both(self):
        wp = self.client()
        wp.submit("x", timeout=30)
        self.assertEqual(30, self.stand_in.seen[-1][2]["timeoutSeconds"])
        self.assertNotIn("timeout", self.stand_in.seen[-1][2])
        wp.map("x", [{}, {}], timeout=40)
        self.assertEqual([40, 40], [j["timeoutSeconds"] for j in self.stand_in.seen[-1][2]["jobs"]])
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

    def test_the_cli_cancels_a_sweep_or_else_a_job_by_its_id(self):
        def answer(method, path, body):
            if path.startswith("/sweeps/s.1"):
                return 200, {"id": "s.1", "state": "CANCELLED"}
            if path.startswith("/sweeps/"):
                return 404, {"status": 404, "detail": "There is no sweep"}
            return 200, {"id": "j.1", "state": "CANCELLED"}
        self.client(answer)
        os.environ["WARMPOOL_URL"], os.environ["WARMPOOL_TOKEN"] = self.stand_in.url, "t"
        try:
            for id in ("s.1", "j.1"):
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    self.assertEqual(0, main(["cancel", id]))
                self.assertEqual("CANCELLED", json.loads(out.getvalue())["state"])
        finally:
            del os.environ["WARMPOOL_URL"], os.environ["WARMPOOL_TOKEN"]
        self.assertEqual([("DELETE", "/sweeps/s.1"), ("DELETE", "/sweeps/j.1"), ("DELETE", "/jobs/j.1")],
                         [(m, p) for m, p, _ in self.stand_in.seen])


if __name__ == "__main__":
    unittest.main()
