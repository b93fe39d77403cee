# A trial for the sweep tests: (x - 3)^2 as the loss, with knobs in its config for the cases
# the tests need (sleep, fail, die, report steps, a loss given as text: "nan", "inf", "1e308").
# SETUP_SECONDS stands for a slow import.
import os
import sys
import time

import warmpool_worker

time.sleep(float(os.environ.get("SETUP_SECONDS", "0")))


def train(config):
    print("trial", os.environ.get("WARMPOOL_JOB_ID"), "config", config, flush=True)
    time.sleep(config.get("sleep", 0))
    if config.get("die"):
        print("dying", flush=True)
        sys.stderr.flush()
        os._exit(3)
    if config.get("fail"):
        raise RuntimeError("asked to fail")
    if "blob" in config:  # a large config: how it arrived
        path = os.environ.get("WARMPOOL_CONFIG_FILE")
        return {"blobLength": len(config["blob"]), "configFile": path, "inEnv": "WARMPOOL_CONFIG" in os.environ,
                "mode": oct(os.stat(path).st_mode & 0o777) if path else None,
                "viaWorkerLib": len(warmpool_worker.config().get("blob", ""))}
    x = config.get("x", 0)
    given = float(config["loss"]) if "loss" in config else None  # json writes NaN, Infinity, -Infinity
    for step in range(config.get("steps", 0)):
        warmpool_worker.report(step, loss=x * (step + 1) if given is None else given)
        time.sleep(config.get("stepSleep", 0))
    return {"loss": (x - 3) ** 2 if given is None else given, "x": x, "pid": os.getpid()}


warmpool_worker.serve(train)
