"""A stand-in for a training run, for the examples, tests and benchmark: a noisy bowl whose minimum
is at x=2, y=-1, "trained" for a few steps that each report a loss that falls towards the final one.

    warmpool_worker.serve(train) -- run as a pool's command, "worker": "persistent" or not.
"""
import math
import time

import warmpool_worker


def loss_of(x, y):
    return (x - 2) ** 2 + (y + 1) ** 2 + 0.3 * math.sin(3 * x) * math.cos(2 * y)


def train(config):
    x, y = float(config.get("x", 0)), float(config.get("y", 0))
    steps = int(config.get("steps", 5))
    final = loss_of(x, y)
    loss = final
    for step in range(steps):
        loss = final + 2.0 / (step + 1)  # falls towards the final loss, as training does
        warmpool_worker.report(step, loss=loss)
        time.sleep(float(config.get("step_seconds", 0.05)))
    print("trained x=%.3f y=%.3f: loss %.4f" % (x, y, final))
    return {"loss": final}


if __name__ == "__main__":
    warmpool_worker.serve(train)
