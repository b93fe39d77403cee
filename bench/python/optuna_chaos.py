"""A study that survives its driver: an Optuna TPE study of N trials on an external sweep, its log in the
sweep's journal, its driver process killed (SIGKILL) K times as the sweep passes even fractions of N and
started again, then run to the end. Prints one JSON object: trials told in the study, trials the sweep
ran, lost (sweep trials the study never told), duplicated (one study trial with two jobs, or a sweep over
N), the kills, and the wall time beside an undisturbed study of the same size.
Usage: optuna_chaos.py [TRIALS] [KILLS] (WARMPOOL_URL, WARMPOOL_TOKEN). Driver mode: optuna_chaos.py drive SWEEP N.
optuna_chaos.py server [TRIALS] [KILLS]: the same against a sweep the manager runs ("algorithm": "optuna"): its
driver job's study process is killed (SIGKILL, found in /proc: run as root, on the manager's machine) and the
driver job starts it again."""
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))
sys.path.insert(0, HERE)
import optuna  # noqa: E402

import warmpool  # noqa: E402
from warmpool.optuna import journal, optimize  # noqa: E402

POOL = "b-optuna-chaos"
SPACE = {"x": optuna.distributions.FloatDistribution(-10, 10), "y": optuna.distributions.FloatDistribution(-10, 10)}


def drive(sweep_id, n):
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    wp = warmpool.Client()
    sweep = wp.get_sweep(sweep_id)
    study = optuna.create_study(study_name=sweep.id, storage=journal(sweep), load_if_exists=True,
                                direction="minimize", sampler=optuna.samplers.TPESampler(seed=1))
    optimize(study, wp, POOL, SPACE, objective="loss", n_trials=n, parallelism=4,
             config={"steps": 3, "step_seconds": 0.05}, sweep=sweep)


def study_of(wp, n, kills):
    sweep = wp.sweep(POOL, algorithm="external", trials=n, parallelism=4,
                     objective={"metric": "loss", "goal": "minimize"})
    driver = [sys.executable, os.path.abspath(__file__), "drive", sweep.id, str(n)]
    start = time.monotonic()
    for k in range(1, kills + 1):
        proc = subprocess.Popen(driver, stdout=subprocess.DEVNULL)
        while sweep.refresh().progress["done"] < n * k // (kills + 1):
            if proc.poll() is not None:
                raise SystemExit("the driver ended before it was killed (exit %s)" % proc.returncode)
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    subprocess.run(driver, check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - start
    sweep.refresh()
    out = tally(sweep, n)
    out.update({"kills": kills, "wallSeconds": round(wall, 2)})
    return out


def tally(sweep, n):
    """What a study on sweep left: trials told, trials the sweep ran, lost (ran, never told) and duplicated (told
    twice, or more trials run than asked)."""
    study = optuna.load_study(study_name=sweep.id, storage=journal(sweep))
    told = [t for t in study.trials if t.user_attrs.get("warmpool_sweep") == sweep.id and t.state.is_finished()]
    jobs = [t.user_attrs.get("warmpool_job") for t in told]
    ran = [t["id"] for t in sweep.trials()]
    return {"trials": n, "sweepState": sweep.state, "told": len(told), "sweepTrials": len(ran),
            "lost": len(set(ran) - set(jobs)), "duplicated": len(jobs) - len(set(jobs)) + max(0, len(ran) - n),
            "best": study.best_value}


def study_processes():
    """The pids of server-side drivers' study processes (warmpool.driver's children) on this machine."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                if b"WARMPOOL_DRIVER_CHILD=1" in f.read().split(b"\0"):
                    out.append(int(pid))
        except OSError:
            pass
    return out


def server_study(wp, n, kills):
    sweep = wp.sweep(POOL, {"x": {"uniform": [-10, 10]}, "y": {"uniform": [-10, 10]}, "steps": {"choice": [3]}},
                     algorithm="optuna", trials=n, parallelism=4, seed=1, objective={"metric": "loss"},
                     sampler={"name": "TPESampler"})
    start = time.monotonic()
    killed = 0
    for k in range(1, kills + 1):
        while sweep.refresh().progress["done"] < n * k // (kills + 1):
            time.sleep(0.05)
        for pid in study_processes():
            os.kill(pid, signal.SIGKILL)
            killed += 1
    while sweep.refresh().state == "RUNNING" or (sweep.data.get("driver") or {}).get("state") in ("QUEUED", "RUNNING"):
        time.sleep(0.1)
    wall = time.monotonic() - start
    out = tally(sweep, n)
    out.update({"kills": killed, "driver": sweep.data.get("driver"), "wallSeconds": round(wall, 2)})
    return out


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "drive":
        drive(sys.argv[2], int(sys.argv[3]))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "server":
        n = int(sys.argv[2]) if len(sys.argv) > 2 else 100
        kills = int(sys.argv[3]) if len(sys.argv) > 3 else 3
        wp = warmpool.Client()
        wp.put_pool(POOL, command=[sys.executable, os.path.join(HERE, "examples", "quadratic.py")],
                    worker="persistent", min_idle=4, max_size=4, env={"PYTHONPATH": HERE})
        try:
            out = {"killed": server_study(wp, n, kills), "undisturbed": server_study(wp, n, 0)}
        finally:
            wp.delete_pool(POOL)
        print(json.dumps(out, indent=1))
        return
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    kills = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    wp = warmpool.Client()
    wp.put_pool(POOL, command=[sys.executable, os.path.join(HERE, "examples", "quadratic.py")],
                worker="persistent", min_idle=4, max_size=4, env={"PYTHONPATH": HERE})
    try:
        out = {"killed": study_of(wp, n, kills), "undisturbed": study_of(wp, n, 0)}
    finally:
        wp.delete_pool(POOL)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
