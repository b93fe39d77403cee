"""warmpool.driver's pieces without a server: a sweep's space as Optuna distributions, and HTTP over the
Unix socket its agent opens for it (``http+unix://`` URLs)."""
import http.server
import json
import os
import socketserver
import tempfile
import threading
import unittest
import urllib.parse

from warmpool.transport import Transport

try:
    import optuna
    HAVE_OPTUNA = True
except ImportError:  # the suite runs without it; CI installs python3-optuna
    HAVE_OPTUNA = False


class _UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"path": self.path, "auth": self.headers.get("Authorization")}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def address_string(self):
        return "unix"

    def log_message(self, *args):
        pass


class UnixSocketTransportTests(unittest.TestCase):
    def test_a_call_goes_over_the_socket_an_http_unix_url_names(self):
        d = tempfile.mkdtemp()
        path = os.path.join(d, "api.sock")
        server = _UnixHTTPServer(path, _Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        t = Transport("http+unix://" + urllib.parse.quote(path, safe=""), token="wpd_x")
        self.addCleanup(t.close)
        self.assertEqual({"path": "/sweeps/s1", "auth": "Bearer wpd_x"}, t.request("GET", "/sweeps/s1"))

    def test_an_http_unix_url_without_a_socket_path_is_refused(self):
        with self.assertRaises(ValueError):
            Transport("http+unix://", token="x")


@unittest.skipIf(not HAVE_OPTUNA, "python3-optuna is not installed")
class DistributionTests(unittest.TestCase):
    def test_each_kind_of_a_sweeps_space_is_its_optuna_distribution(self):
        from warmpool.driver import distributions
        d = distributions({"lr": {"logUniform": [1e-4, 0.1]}, "x": {"uniform": [-1, 1]}, "n": {"int": [2, 6]},
                           "opt": {"choice": ["adam", "sgd"]}, "bs": {"grid": [16, 32]}})
        self.assertEqual(optuna.distributions.FloatDistribution(1e-4, 0.1, log=True), d["lr"])
        self.assertEqual(optuna.distributions.FloatDistribution(-1, 1), d["x"])
        self.assertEqual(optuna.distributions.IntDistribution(2, 6), d["n"])
        self.assertEqual(optuna.distributions.CategoricalDistribution(["adam", "sgd"]), d["opt"])
        self.assertEqual(optuna.distributions.CategoricalDistribution([16, 32]), d["bs"])

    def test_a_kind_it_does_not_know_is_named(self):
        from warmpool.driver import distributions
        with self.assertRaisesRegex(ValueError, "normal"):
            distributions({"x": {"normal": [0, 1]}})
