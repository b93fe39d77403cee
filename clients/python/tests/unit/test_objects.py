"""Jobs as futures (their ends from ``?wait=``, from ``ended`` when the server says it, else from the
state), sweeps, pools and the fair-share fields (``tenants`` of a pool, ``tenant`` of a job or sweep)."""
import concurrent.futures
import math
import threading

import warmpool
from warmpool.objects import Tenant

from .base import StubTestCase
from .stub import Reply, ok, problem

POOL = {"type": "train", "state": "ACTIVE", "spec": {"command": ["python3", "t.py"]},
        "status": {"idle": 1, "busy": 2, "queued": 3},
        "tenants": [{"tenant": "vision", "weight": 2, "maxRunning": 4, "running": 2, "queued": 3,
                     "usageSeconds": 12.5, "share": 0.75, "sweeps": {"busySeconds": 4.5, "coldStarts": 1}},
                    {"tenant": "nlp", "weight": 1.0, "maxRunning": None, "running": 0, "queued": 0,
                     "usageSeconds": 0, "share": 0.25}]}


WHY = "the persistent worker [python3, w.py] exited at once (exit 1): ModuleNotFoundError: No module named 'torhc'"
CANNOT_START = Reply(503, {"type": "https://warmpool.dev/problems/pool-cannot-start", "status": 503,
                           "title": "Pool cannot start processors", "job": "t.9", "pool": "train",
                           "detail": "Pool 'train' cannot start processors: %s. Job t.9 stays queued." % WHY,
                           "startError": {"reason": WHY, "at": "2026-12-07T05:00:00.000Z"}})


class JobTests(StubTestCase):
    def test_a_job_s_future_completes_with_its_metrics_from_the_waits(self):
        self.stub.route("POST", "/jobs", ok({"id": "t.1", "state": "QUEUED", "ended": False}, 202))
        self.stub.route("GET", "/jobs/t.1", ok({"id": "t.1", "state": "RUNNING", "ended": False}),
                        ok({"id": "t.1", "state": "SUCCEEDED", "ended": True, "result": {"metrics": {"loss": 0.5}}}))
        job = self.wp.submit("t", config={"lr": 0.1})
        self.assertEqual({"loss": 0.5}, job.result(timeout=10))
        self.assertTrue(job.ended)
        waits = self.stub.seen("GET", "/jobs/t.1")
        self.assertEqual(["30", "30"], [r.query.get("wait") for r in waits], "long polls, not a busy loop")

    def test_ended_from_the_server_settles_a_state_the_client_does_not_know(self):
        self.stub.route("POST", "/jobs", ok({"id": "t.2", "state": "ARCHIVED", "ended": True, "error": "archived"}, 202))
        job = self.wp.submit("t")
        self.assertTrue(job.done(), "the server says it ended: no waiter")
        with self.assertRaises(warmpool.JobFailed) as e:
            job.result(timeout=0)
        self.assertEqual("ARCHIVED", e.exception.state)
        self.assertEqual([], self.stub.seen("GET", "/jobs/t.2"))

    def test_ended_false_keeps_waiting_whatever_the_state(self):
        self.stub.route("GET", "/jobs/t.3", ok({"id": "t.3", "state": "SUCCEEDED", "ended": False}),
                        ok({"id": "t.3", "state": "SUCCEEDED", "ended": True, "result": {"metrics": {}}}))
        job = warmpool.Job(self.wp, {"id": "t.3", "state": "SUCCEEDED", "ended": False})
        self.assertEqual({}, job.result(timeout=10))
        self.assertEqual(2, len(self.stub.seen("GET", "/jobs/t.3")))

    def test_without_ended_the_client_s_end_states_decide(self):
        for state, ended in (("QUEUED", False), ("RUNNING", False), ("SUCCEEDED", True), ("FAILED", True),
                             ("CANCELLED", True), ("TIMED_OUT", True), ("EARLY_STOPPED", True)):
            with self.subTest(state=state):
                # the server says what the job was made with, so its waiter (which may start at once) sees no end
                # before the assertion; then the end, which the waiter reads
                self.stub.route("GET", "/jobs/t.4", ok({"id": "t.4", "state": state}))
                job = warmpool.Job(self.wp, {"id": "t.4", "state": state})
                self.assertEqual(ended, job.ended)
                if not ended:
                    self.stub.route("GET", "/jobs/t.4", ok({"id": "t.4", "state": "SUCCEEDED"}))
                    job.result(timeout=10)  # its waiter reads the end

    def test_many_jobs_complete_as_futures(self):
        self.stub.route("POST", "/jobs/batch", lambda req: ok(
            {"jobs": [{"id": "t.%d" % i, "state": "QUEUED"} for i in range(len(req.body["jobs"]))]}, 202))
        for i in range(4):
            self.stub.route("GET", "/jobs/t.%d" % i, ok({"id": "t.%d" % i, "state": "SUCCEEDED",
                                                         "result": {"metrics": {"i": i}}}))
        jobs = self.wp.map("t", [{"x": i} for i in range(4)], args=["--fast"], priority=2)
        self.assertEqual([{"type": "t", "config": {"x": i}, "args": ["--fast"], "priority": 2} for i in range(4)],
                         self.stub.requests[0].body["jobs"])
        got = sorted(f.result()["i"] for f in concurrent.futures.as_completed(jobs, timeout=10))
        self.assertEqual([0, 1, 2, 3], got)

    def test_run_waits_in_the_request(self):
        self.stub.route("POST", "/jobs", ok({"id": "t.5", "state": "SUCCEEDED", "result": {"metrics": {"a": 1}}}))
        self.assertEqual({"a": 1}, self.wp.run("t", timeout=60).metrics)
        self.assertEqual("60", self.stub.requests[0].query["wait"])

    def test_cancel_says_whether_it_ended_the_job(self):
        self.stub.route("DELETE", "/jobs/t.6", ok({"id": "t.6", "state": "CANCELLED", "ended": True}),
                        problem(409, "job t.6 has ended"))
        self.stub.route("GET", "/jobs/t.6", ok({"id": "t.6", "state": "CANCELLED", "ended": True}))
        job = warmpool.Job(self.wp, {"id": "t.6", "state": "CANCELLED", "ended": True})
        self.assertTrue(job.cancel())
        self.assertFalse(job.cancel())

    def test_a_job_whose_pool_cannot_start_raises_why_at_once_as_a_timeout(self):
        self.stub.route("POST", "/jobs", ok({"id": "t.9", "state": "QUEUED", "ended": False}, 202), CANNOT_START)
        self.stub.route("GET", "/jobs/t.9", CANNOT_START)
        job = self.wp.submit("t")
        with self.assertRaises(warmpool.PoolStartError) as e:
            job.result(timeout=10)
        self.assertIsInstance(e.exception, TimeoutError, "old code that catches TimeoutError still does")
        self.assertIsInstance(e.exception, concurrent.futures.TimeoutError)
        self.assertIsInstance(e.exception, warmpool.Unavailable)
        self.assertEqual(("train", "t.9", WHY), (e.exception.pool, e.exception.job_id, e.exception.reason))
        self.assertIn(WHY, str(e.exception))
        self.assertEqual(1, len(self.stub.seen("GET", "/jobs/t.9")), "no retry: only fixing the pool changes it")
        with self.assertRaises(warmpool.PoolStartError):
            self.wp.run("t", timeout=60)

    def test_a_job_that_cancel_ended_says_it_is_cancelled(self):
        deleted = threading.Event()

        def wait(_req):  # the server's long poll: the job ends when it is cancelled
            deleted.wait(10)
            return ok({"id": "t.9", "state": "CANCELLED", "ended": True, "error": "cancelled by wp_test"})

        def delete(_req):
            deleted.set()
            return ok({"id": "t.9", "state": "CANCELLED", "ended": True, "error": "cancelled by wp_test"})

        self.stub.route("GET", "/jobs/t.9", wait)
        self.stub.route("DELETE", "/jobs/t.9", delete, problem(409, "job t.9 has ended"))
        job = warmpool.Job(self.wp, {"id": "t.9", "state": "QUEUED"})
        self.assertFalse(job.cancelled())
        self.assertTrue(job.cancel())
        self.assertTrue(job.cancelled())
        self.assertTrue(job.done())
        with self.assertRaises(warmpool.JobFailed) as e:
            job.result(timeout=10)
        self.assertEqual("CANCELLED", e.exception.state)
        self.assertFalse(job.cancel())
        self.assertTrue(job.cancelled())
        self.assertFalse(warmpool.Job(self.wp, {"id": "t.10", "state": "FAILED"}).cancelled())

    def test_a_job_s_tenant_or_none(self):
        job = warmpool.Job(self.wp, {"id": "t.7", "state": "SUCCEEDED", "tenant": "vision"})
        self.assertEqual("vision", job.tenant)
        self.assertIn("vision", job._repr_html_())
        self.assertIsNone(warmpool.Job(self.wp, {"id": "t.8", "state": "SUCCEEDED"}).tenant)


class PoolTests(StubTestCase):
    def test_put_pool_warns_of_what_the_server_warned_of(self):
        import warnings
        said = "minIdle 500 keeps 500 processors warm on a machine of 2 cores (more than 16 a core): ..."
        self.stub.route("PUT", "/pools/big", ok({"type": "big", "spec": {"minIdle": 500}, "warnings": [said]}, 201),
                        ok({"type": "big", "spec": {"minIdle": 2}}))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pool = self.wp.put_pool("big", command=["true"], min_idle=500)
            self.assertEqual([said], pool.warnings)
            self.assertEqual([warmpool.PoolWarning], [w.category for w in caught])
            self.assertEqual("pool big: " + said, str(caught[0].message))
            self.assertEqual([], self.wp.put_pool("big", command=["true"], min_idle=2).warnings)
            self.assertEqual(1, len(caught))

    def test_a_pool_s_tenants_are_typed(self):
        self.stub.route("GET", "/pools/train", ok(POOL))
        pool = self.wp.pool("train")
        self.assertEqual([Tenant(name="vision", weight=2.0, max_running=4, running=2, queued=3, usage_seconds=12.5,
                                 share=0.75, sweeps={"busySeconds": 4.5, "coldStarts": 1}),
                          Tenant(name="nlp", weight=1.0, max_running=None, running=0, queued=0, usage_seconds=0.0,
                                 share=0.25)], pool.tenants)
        self.assertIsInstance(pool.tenants[0].weight, float)
        self.assertEqual(2, len(set(pool.tenants)), "a tenant is hashable (its sweeps' cost is not hashed)")
        self.assertEqual(2, pool["status"]["busy"], "still the API's dict")
        self.assertIn("tenant vision", pool._repr_html_())

    def test_a_pool_shows_why_its_processors_cannot_start(self):
        self.stub.route("GET", "/pools/train", ok(dict(POOL, startError={"reason": WHY, "at": "2026-12-07T05:00:00.000Z"})),
                        ok(POOL))
        pool = self.wp.pool("train")
        self.assertEqual(WHY, pool.start_error)
        self.assertIn("cannot start: " + WHY, repr(pool))
        self.assertIn("start error", pool._repr_html_())
        self.assertIsNone(self.wp.pool("train").start_error)

    def test_a_pool_without_tenants_has_none(self):
        self.stub.route("GET", "/pools", ok([{"type": "a"}, {"type": "b", "tenants": None}]))
        self.assertEqual([[], []], [p.tenants for p in self.wp.pools()])

    def test_put_pool_sends_the_api_s_names(self):
        self.stub.route("PUT", "/pools/train", lambda req: ok(dict(req.body, type="train")))
        pool = self.wp.put_pool("train", command=["x"], min_idle=1, max_size=4, idle_timeout_seconds=60,
                                env={"MY_VAR": "1"})
        self.assertEqual({"command": ["x"], "minIdle": 1, "maxSize": 4, "idleTimeoutSeconds": 60,
                          "env": {"MY_VAR": "1"}}, self.stub.requests[0].body)
        self.assertEqual("train", pool.type)

    def test_a_pool_says_its_runtime(self):
        self.stub.route("PUT", "/pools/img", lambda req: ok(dict(type="img", spec=dict(req.body))))
        pool = self.wp.put_pool("img", command=["x"], runtime="docker", template={"image": "python:3.12-slim"})
        self.assertEqual("docker", self.stub.requests[0].body["runtime"])
        self.assertEqual("docker", pool.runtime)
        self.assertIsNone(warmpool.Pool(self.wp, {"type": "a"}).runtime)


class SweepTests(StubTestCase):
    def test_a_sweep_waits_until_it_ends_and_carries_its_tenant(self):
        running = {"id": "s.1", "state": "RUNNING", "tenant": "nlp", "progress": {"done": 1, "total": 2}}
        self.stub.route("POST", "/sweeps", ok(running, 202))
        self.stub.route("GET", "/sweeps/s.1", ok(running),
                        ok(dict(running, state="SUCCEEDED", best={"trial": 1, "value": "NaN"})))
        sweep = self.wp.sweep("t", {"x": {"grid": [1, 2]}}, parallelism=2, timeout=30)
        self.assertEqual({"type": "t", "space": {"x": {"grid": [1, 2]}}, "parallelism": 2, "timeoutSeconds": 30},
                         self.stub.requests[0].body)
        sweep.wait(timeout=10, every=0.01)
        self.assertEqual("SUCCEEDED", sweep.state)
        self.assertEqual("nlp", sweep.tenant)
        best = sweep.best or {}
        self.assertTrue(math.isnan(best["value"]), "the API's NaN as a float")

    def test_a_sweep_s_ended_decides_when_the_server_says_it(self):
        self.assertFalse(warmpool.Sweep(self.wp, {"id": "s.2", "state": "CANCELLING", "ended": False}).done())
        self.assertTrue(warmpool.Sweep(self.wp, {"id": "s.2", "state": "CANCELLING", "ended": True}).done())
        self.assertTrue(warmpool.Sweep(self.wp, {"id": "s.2", "state": "FAILED"}).done())
        self.assertIsNone(warmpool.Sweep(self.wp, {"id": "s.2", "state": "FAILED"}).tenant)

    def test_a_sweep_shows_what_it_cost(self):
        ended = {"id": "s.3", "state": "SUCCEEDED", "cost": {"busySeconds": 1.25, "trials": 3, "coldStarts": 2}}
        self.stub.route("GET", "/sweeps/s.3", ok(ended))
        sweep = warmpool.Sweep(self.wp, {"id": "s.3", "state": "RUNNING"})
        self.assertEqual({"busySeconds": 0.0, "trials": 0, "coldStarts": 0}, sweep.cost, "an older server's: zeros")
        sweep.refresh()
        self.assertEqual({"busySeconds": 1.25, "trials": 3, "coldStarts": 2}, sweep.cost)

    def test_cancel_tries_a_sweep_then_a_job(self):
        self.stub.route("DELETE", "/sweeps/j.1", problem(404, "There is no sweep j.1"))
        self.stub.route("DELETE", "/jobs/j.1", ok({"id": "j.1", "state": "CANCELLED"}))
        self.assertIsInstance(self.wp.cancel("j.1"), warmpool.Job)
