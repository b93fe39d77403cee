"""warmpool.worker (and warmpool_worker, the name scripts imported it by) in real processes: a job's
config in and metrics out, once per process or as a persistent worker's line protocol; its import
loads nothing of the client."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import warmpool.worker
import warmpool_worker

from . import CLIENT

TRAIN = """
import sys
import {module} as worker

def train(config):
    print("training", config)          # a log line, never a protocol line
    worker.report(1, loss=config["x"] * 2)
    if config.get("fail"):
        raise ValueError("asked to fail")
    return {{"loss": config["x"]}}

worker.serve(train)
"""


def run(module, env, stdin=""):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(TRAIN.format(module=module))
    try:
        return subprocess.run([sys.executable, f.name], input=stdin, capture_output=True, text=True, timeout=60,
                              env=dict(os.environ, PYTHONPATH=CLIENT, **env))
    finally:
        os.remove(f.name)


class WorkerTests(unittest.TestCase):
    def test_the_old_module_is_the_new_one(self):
        for name in ("serve", "report", "config"):
            self.assertIs(getattr(warmpool.worker, name), getattr(warmpool_worker, name))

    def test_importing_the_worker_loads_none_of_the_client(self):
        out = subprocess.run([sys.executable, "-c", "import sys, warmpool_worker; from warmpool import worker; "
                              "print(sorted(m for m in sys.modules if m.startswith(('warmpool', 'http', 'concurrent'))))"],
                             capture_output=True, text=True, timeout=60, env=dict(os.environ, PYTHONPATH=CLIENT))
        self.assertEqual("['warmpool', 'warmpool.worker', 'warmpool_worker']", out.stdout.strip(), out.stderr)

    def test_the_package_s_names_and_modules_load_on_first_use(self):
        out = subprocess.run([sys.executable, "-c", "import warmpool; print(warmpool.errors.NotFound.__name__, "
                              "warmpool.client.Client is warmpool.Client, warmpool.Tenant.__module__)"],
                             capture_output=True, text=True, timeout=60, env=dict(os.environ, PYTHONPATH=CLIENT))
        self.assertEqual("NotFound True warmpool.objects", out.stdout.strip(), out.stderr)
        with self.assertRaises(AttributeError):
            getattr(warmpool, "NoSuchName")

    def test_a_process_per_job_writes_its_metrics_and_reports_on_stdout(self):
        for module in ("warmpool_worker", "warmpool.worker"):
            with self.subTest(module=module), tempfile.TemporaryDirectory() as d:
                result = os.path.join(d, "result.json")
                out = run(module, {"WARMPOOL_CONFIG": '{"x": 0.5}', "WARMPOOL_RESULT": result})
                self.assertEqual(0, out.returncode, out.stderr)
                with open(result) as f:
                    self.assertEqual({"loss": 0.5}, json.load(f))
                self.assertIn('WARMPOOL_REPORT {"loss": 1.0, "step": 1}', out.stdout)

    def test_a_failing_function_fails_the_job_with_its_traceback(self):
        out = run("warmpool.worker", {"WARMPOOL_CONFIG": '{"x": 1, "fail": true}'})
        self.assertEqual(1, out.returncode)
        self.assertIn("ValueError: asked to fail", out.stderr)

    def test_a_persistent_worker_answers_each_job_line_with_one_line(self):
        jobs = [{"id": "t.1", "config": {"x": 1}}, {"id": "t.2", "config": {"x": 2, "fail": True}}]
        out = run("warmpool_worker", {"WARMPOOL_WORKER": "persistent"}, "".join(json.dumps(j) + "\n" for j in jobs))
        self.assertEqual(0, out.returncode, out.stderr)
        lines = [json.loads(line) for line in out.stdout.splitlines()]
        self.assertEqual([{"report": {"loss": 2, "step": 1}}, {"status": "SUCCEEDED", "metrics": {"loss": 1}},
                          {"report": {"loss": 4, "step": 1}},
                          {"status": "FAILED", "error": "ValueError: asked to fail"}], lines)
        self.assertIn("training {'x': 1}", out.stderr, "what the function prints is the job's log")
