"""Run a Python training function as warmpool jobs: the module scripts have imported so far, now
:mod:`warmpool.worker` (which see), re-exported here so that ``import warmpool_worker`` keeps working.

    import warmpool_worker

    def train(config):
        warmpool_worker.report(0, loss=0.5)   # optional
        return {"loss": 0.25}

    warmpool_worker.serve(train)

It needs the ``warmpool`` package beside it (``clients/python`` on PYTHONPATH, or the package installed).
"""
from warmpool.worker import CONFIG_IN_ENV_MAX, Train, _not_a_program, config, report, serve

__all__ = ["serve", "report", "config", "Train", "CONFIG_IN_ENV_MAX"]

if __name__ == "__main__":
    _not_a_program()
