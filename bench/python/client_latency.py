"""Client-seen latency of a warm `true` job through the Python client, one job after another:
``run`` (POST /jobs?wait=, one request) and ``submit().result()`` (POST, then GET ?wait=).
Prints one JSON object of figures (ms). Usage: client_latency.py N (WARMPOOL_URL, WARMPOOL_TOKEN)."""
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))
import warmpool  # noqa: E402


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    wp = warmpool.Client()
    wp.put_pool("b-py", command=["true"], min_idle=1, max_size=1)
    while (wp.pool("b-py").get("status") or {}).get("idle", 0) < 1:
        time.sleep(0.05)
    for _ in range(20):  # warm the connection and the server's paths
        wp.run("b-py", timeout=30)
    run, submit = [], []
    for _ in range(n):
        t0 = time.perf_counter()
        job = wp.run("b-py", timeout=30)
        run.append((time.perf_counter() - t0) * 1000)
        assert job.state == "SUCCEEDED", job.data
        t0 = time.perf_counter()
        wp.submit("b-py").result(timeout=30)
        submit.append((time.perf_counter() - t0) * 1000)
    wp.delete_pool("b-py")
    print(json.dumps({"run.p50": statistics.median(run), "run.p99": pct(run, 99),
                      "submitResult.p50": statistics.median(submit), "submitResult.p99": pct(submit, 99)}))


if __name__ == "__main__":
    main()
