"""The transport against the stub: tokens, kept-alive connections, retries after 503, 429 and a
reset connection (with Retry-After and one Idempotency-Key), and refusals as typed errors."""
import os
import tempfile

import warmpool
from warmpool import transport

from .base import StubTestCase
from .stub import RESET, ok, problem

RUNNING = {"id": "t.1", "type": "t", "state": "RUNNING"}
ENDED = {"id": "t.1", "type": "t", "state": "SUCCEEDED", "ended": True, "result": {"metrics": {"loss": 0.5}}}


class TransportTests(StubTestCase):
    def test_every_call_carries_the_bearer_token_and_json(self):
        self.stub.route("PUT", "/pools/p", ok({"type": "p"}))
        self.wp.put_pool("p", command=["true"])
        req = self.stub.requests[-1]
        self.assertEqual("Bearer wp_test", req.headers["Authorization"])
        self.assertEqual("application/json", req.headers["Content-Type"])
        self.assertEqual({"command": ["true"]}, req.body)

    def test_calls_of_one_thread_share_one_kept_alive_connection(self):
        self.stub.route("GET", "/pools", ok([]))
        for _ in range(5):
            self.wp.pools()
        self.assertEqual(5, len(self.stub.requests))
        self.assertEqual(1, self.stub.connections)

    def test_a_url_with_a_path_prefixes_every_call(self):
        self.stub.route("GET", "/warmpool/pools", ok([{"type": "p"}]))
        wp = warmpool.Client(self.stub.url + "/warmpool/", token="t")
        self.addCleanup(wp.close)
        self.assertEqual(["p"], [p.type for p in wp.pools()])

    def test_a_url_that_is_not_http_is_refused_at_once(self):
        with self.assertRaises(ValueError) as e:
            warmpool.Client("localhost:8080", token="t")
        self.assertIn("http://host:port", str(e.exception))

    def test_503_and_429_are_tried_again_after_retry_after_with_one_idempotency_key(self):
        self.stub.route("POST", "/jobs", problem(503, "Redis is not answering", Retry_After="0"),
                        problem(429, "too many submits", Retry_After="0"), ok(ENDED, 202))
        job = self.wp.submit("t")
        self.assertEqual("t.1", job.id)
        keys = [r.headers["Idempotency-Key"] for r in self.stub.seen("POST", "/jobs")]
        self.assertEqual(3, len(keys))
        self.assertEqual(1, len(set(keys)), "one key for the three tries: the server runs it once")
        self.wp.submit("t")
        self.assertNotEqual(keys[0], self.stub.seen("POST", "/jobs")[-1].headers["Idempotency-Key"],
                            "another submit, another key")

    def test_a_reset_connection_is_tried_again_on_a_new_one(self):
        self.stub.route("GET", "/jobs/t.1", RESET, ok(ENDED))
        self.assertEqual("SUCCEEDED", self.wp.job("t.1").state)
        self.assertEqual(2, len(self.stub.seen("GET", "/jobs/t.1")))
        self.assertEqual(2, self.stub.connections)

    def test_after_its_retries_a_503_is_unavailable_with_the_server_s_detail(self):
        self.stub.route("GET", "/pools", problem(503, "Redis is not answering", Retry_After="0"))
        with self.assertRaises(warmpool.Unavailable) as e:
            self.client(retries=2).pools()
        self.assertEqual(503, e.exception.status)
        self.assertIn("Redis is not answering", str(e.exception))
        self.assertEqual(3, len(self.stub.requests), "the first try and two retries")

    def test_a_server_that_cannot_be_reached_is_unavailable_naming_it(self):
        url = self.stub.url
        self.stub.close()
        with self.assertRaises(warmpool.Unavailable) as e:
            warmpool.Client(url, token="t", retries=1).pools()
        self.assertIn(url, str(e.exception))

    def test_refusals_are_typed_errors_carrying_the_problem(self):
        cases = [(400, warmpool.Invalid), (401, warmpool.Unauthorized), (403, warmpool.Forbidden),
                 (404, warmpool.NotFound), (409, warmpool.Conflict), (422, warmpool.Conflict)]
        for status, error in cases:
            with self.subTest(status=status):
                self.stub.route("GET", "/jobs/x", problem(status, "refused %d" % status, type="https://warmpool.dev/problems/p"))
                with self.assertRaises(error) as e:
                    self.wp.job("x")
                self.assertEqual(status, e.exception.status)
                self.assertEqual("https://warmpool.dev/problems/p", e.exception.type)
                self.assertEqual("refused %d" % status, e.exception.detail)
                self.assertEqual(status, e.exception.problem["status"])
                self.assertIsInstance(e.exception, warmpool.WarmpoolError)

    def test_a_refusal_without_json_says_its_status(self):
        self.stub.route("GET", "/jobs/x", lambda req: ok(None, 500))
        with self.assertRaises(warmpool.WarmpoolError) as e:
            self.wp.job("x")
        self.assertEqual("500: HTTP 500", str(e.exception))

    def test_ids_are_quoted_into_the_path(self):
        self.stub.route("GET", "/jobs/a%2Fb", ok({"id": "a/b", "state": "SUCCEEDED"}))
        self.assertEqual("a/b", self.wp.job("a/b").id)

    def test_the_token_defaults_to_the_environment_then_the_run_command_s_file(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, ".warmpool"))
            with open(os.path.join(d, ".warmpool", "token"), "w") as f:
                f.write("wp_from_file\n")
            below = os.path.join(d, "notebooks", "deep")
            os.makedirs(below)
            self.assertEqual("wp_from_file", transport.find_token(below))
            here = os.getcwd()
            old = os.environ.pop("WARMPOOL_TOKEN", None)
            try:
                os.chdir(below)
                self.assertEqual("wp_from_file", warmpool.Client(self.stub.url).token)
                os.environ["WARMPOOL_TOKEN"] = "wp_from_env"
                self.assertEqual("wp_from_env", warmpool.Client(self.stub.url).token)
            finally:
                os.chdir(here)
                os.environ.pop("WARMPOOL_TOKEN", None)
                if old is not None:
                    os.environ["WARMPOOL_TOKEN"] = old


class BackoffTests(StubTestCase):
    def test_backoff_doubles_and_is_capped(self):
        self.assertEqual([0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0], [transport.backoff(a) for a in range(1, 8)])
