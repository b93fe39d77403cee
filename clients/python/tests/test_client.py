"""The Python client against a running warmpool (WARMPOOL_URL, WARMPOOL_TOKEN): PythonClientIT
starts the packaged app on a redis-server of its own and runs this suite with /usr/bin/python3."""
import concurrent.futures
import importlib.util
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import warmpool  # noqa: E402

RESULT = "printf '{\"loss\": %s}' \"${1:-0.5}\" > \"$WARMPOOL_RESULT\""


class ClientTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.wp = warmpool.Client()
        cls.wp.put_pool("py-ok", command=["sh", "-c", RESULT, "job"], min_idle=2, max_size=4)
        cls.wp.put_pool("py-slow", command=["sh", "-c", "sleep 30"], min_idle=1, max_size=1)
        cls.wp.put_pool("py-fail", command=["sh", "-c", "echo training diverged >&2; exit 3"], min_idle=1, max_size=1)
        # prints an epoch a line, reporting each, as a training loop would
        talk = r'for i in 1 2 3; do echo "epoch $i"; echo "WARMPOOL_REPORT {\"step\": $i, \"loss\": 0.$i}"; sleep 0.1; done'
        cls.wp.put_pool("py-talk", command=["sh", "-c", talk], min_idle=1, max_size=1)

    @classmethod
    def tearDownClass(cls):
        cls.wp.close()

    def test_put_pool_takes_snake_case_and_pools_shows_it(self):
        pool = self.wp.put_pool("py-spec", command=["true"], min_idle=0, max_size=3, idle_timeout_seconds=60)
        self.assertEqual(3, pool["spec"]["maxSize"])
        self.assertEqual(60, pool["spec"]["idleTimeoutSeconds"])
        self.assertIn("py-spec", [p.type for p in self.wp.pools()])
        self.assertIn("idle", repr(self.wp.pool("py-spec")))
        self.assertIn("<table>", self.wp.pool("py-spec")._repr_html_())
        self.wp.delete_pool("py-spec")

    def test_a_job_s_result_is_its_metrics(self):
        job = self.wp.submit("py-ok", args=["0.25"])
        self.assertEqual({"loss": 0.25}, job.result(timeout=60))
        self.assertTrue(job.done())
        self.assertEqual("SUCCEEDED", job.state)
        self.assertIn("SUCCEEDED", job._repr_html_())

    def test_a_failed_job_raises_with_its_error_and_log_tail(self):
        job = self.wp.submit("py-fail")
        with self.assertRaises(warmpool.JobFailed) as e:
            job.result(timeout=60)
        self.assertEqual("FAILED", e.exception.state)
        self.assertIn("training diverged", e.exception.log_tail)
        self.assertIn("training diverged", str(e.exception))

    def test_result_times_out_and_cancel_ends_the_job(self):
        job = self.wp.submit("py-slow")
        with self.assertRaises(TimeoutError):
            job.result(timeout=0.5)
        self.assertTrue(job.cancel())
        self.assertTrue(job.cancelled(), "cancel() and cancelled() agree")
        with self.assertRaises(warmpool.JobFailed) as e:
            job.result(timeout=30)
        self.assertEqual("CANCELLED", e.exception.state)
        self.assertFalse(job.cancel(), "an ended job is not cancelled again")

    def test_a_pool_that_cannot_start_tells_the_waiter_why(self):
        why = "ModuleNotFoundError: No module named torhc"
        self.wp.put_pool("py-nostart", command=["sh", "-c", "echo %s >&2; exit 1" % why], worker="persistent",
                         min_idle=0, max_size=1)
        self.addCleanup(self.wp.delete_pool, "py-nostart")
        job = self.wp.submit("py-nostart")
        with self.assertRaises(warmpool.PoolStartError) as e:
            job.result(timeout=60)
        self.assertIsInstance(e.exception, TimeoutError)
        self.assertIn(why, e.exception.reason or "")
        self.assertEqual(job.id, e.exception.job_id)
        self.assertIn(why, self.wp.pool("py-nostart").start_error or "")
        self.assertEqual("QUEUED", job.refresh().state, "it waits for a processor that can start")

    def test_map_is_one_batch_and_as_completed_works_over_the_jobs(self):
        jobs = self.wp.map("py-ok", [None] * 6, args=["0.75"])
        self.assertEqual(6, len({j.id for j in jobs}))
        done = [f.result() for f in concurrent.futures.as_completed(jobs, timeout=120)]
        self.assertEqual([{"loss": 0.75}] * 6, done)

    def test_run_submits_and_waits_in_one_request(self):
        job = self.wp.run("py-ok", args=["0.5"], timeout=60)
        self.assertEqual("SUCCEEDED", job.state)
        self.assertEqual({"loss": 0.5}, job.metrics)

    def test_refusals_are_typed_errors_with_the_problem(self):
        with self.assertRaises(warmpool.NotFound) as e:
            self.wp.submit("py-no-such-pool")
        self.assertEqual(404, e.exception.status)
        self.assertTrue(e.exception.type.endswith("/unknown-type"), e.exception.type)
        with self.assertRaises(warmpool.Invalid) as e:
            self.wp.submit("py-ok", priority="high")
        self.assertEqual("priority", e.exception.field)
        with self.assertRaises(warmpool.Unauthorized):
            warmpool.Client(token="wp_not_a_token").pools()

    def test_a_sweep_waits_and_shows_its_best_trial(self):
        sweep = self.wp.sweep("py-ok", {"x": {"grid": [1, 2, 3]}}, args=[], parallelism=2,
                              objective={"metric": "loss", "goal": "minimize"})
        sweep.wait(timeout=120)
        self.assertEqual("SUCCEEDED", sweep.state)
        self.assertEqual(3, len(sweep.trials()))
        self.assertEqual(0.5, sweep.best["value"])
        self.assertIn("best value", sweep._repr_html_())

    @unittest.skipUnless(importlib.util.find_spec("pandas"), "pandas is not installed")
    def test_a_sweep_as_a_table(self):
        sweep = self.wp.sweep("py-ok", {"x": {"grid": [1, 2]}}, parallelism=2).wait(timeout=120)
        df = sweep.to_pandas()
        self.assertEqual([1, 2], sorted(df["config.x"].tolist()))
        self.assertEqual([0.5, 0.5], df["metrics.loss"].tolist())

    def test_logs_follow_a_running_job_and_read_an_ended_one(self):
        job = self.wp.submit("py-talk")
        lines = [line for line in job.logs(follow=True) if line.startswith("epoch")]
        self.assertEqual(["epoch 1", "epoch 2", "epoch 3"], lines)
        self.assertEqual({}, job.result(timeout=30))
        self.assertEqual(lines, [line for line in job.logs() if line.startswith("epoch")])

    def test_events_give_states_lines_reports_and_the_end(self):
        job = self.wp.submit("py-talk")
        events = list(job.events())
        names = [e.name for e in events]
        self.assertEqual("end", names[-1])
        self.assertEqual("SUCCEEDED", events[-1].data["state"])
        self.assertEqual(["epoch 1", "epoch 2", "epoch 3"], [e.data for e in events if e.name == "log" and e.data.startswith("epoch")])
        self.assertEqual([1, 2, 3], [e.data["step"] for e in events if e.name == "report"])
        self.assertTrue(all(e.id for e in events if e.name in ("log", "report")))
        self.assertTrue(job.done(), "the end event settles the future")
        with self.assertRaises(warmpool.NotFound):
            list(self.wp.events("/jobs/py-talk.0123456789ab/events"))

    def test_a_sweep_s_events_end_with_it(self):
        sweep = self.wp.sweep("py-ok", {"x": {"grid": [1, 2]}}, parallelism=1)
        names = [e.name for e in sweep.events()]
        self.assertIn(names[0], ("sweep", "end"), "the sweep as it is first (only its end when it has ended)")
        self.assertEqual("end", names[-1])
        self.assertEqual(1, names.count("end"))
        self.assertEqual("SUCCEEDED", sweep.state)

    def test_the_cli_follows_a_job_and_prints_logs(self):
        env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), ".."))
        out = subprocess.run([sys.executable, "-m", "warmpool", "submit", "py-talk", "--follow"], env=env,
                             capture_output=True, text=True, timeout=90)
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertTrue(out.stdout.startswith("epoch 1\n"), out.stdout)
        ended = json.loads(out.stdout[out.stdout.index("\n{\n") + 1:])
        self.assertEqual("SUCCEEDED", ended["state"])
        out = subprocess.run([sys.executable, "-m", "warmpool", "logs", ended["id"]], env=env,
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertIn("epoch 3\n", out.stdout)

    def test_the_cli_lists_pools_and_submits(self):
        env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), ".."))
        out = subprocess.run([sys.executable, "-m", "warmpool", "pools"], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertIn("py-ok", out.stdout)
        out = subprocess.run([sys.executable, "-m", "warmpool", "submit", "py-ok", "--wait", "60"], env=env,
                             capture_output=True, text=True, timeout=90)
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertEqual("SUCCEEDED", json.loads(out.stdout)["state"])
        out = subprocess.run([sys.executable, "-m", "warmpool", "submit", "py-ok", "--config", "{nope"], env=env,
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(2, out.returncode)
        self.assertIn("not JSON", out.stderr)


if __name__ == "__main__":
    unittest.main()
