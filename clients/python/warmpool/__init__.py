"""warmpool from Python: submit ML jobs to warm processors and wait for their metrics.

    import warmpool
    wp = warmpool.Client()                  # WARMPOOL_URL, WARMPOOL_TOKEN (or .warmpool/token)
    wp.put_pool("train", command=["python3", "train.py"], min_idle=2)
    job = wp.submit("train", config={"lr": 0.01})
    print(job.result(timeout=600))          # the job's metrics; JobFailed if it did not succeed

Standard library only; tqdm (progress bars) and pandas (``Sweep.to_pandas``) are used when installed.

Modules: ``client`` (the API's verbs), ``objects`` (Job, Sweep, Pool, Tenant), ``errors``,
``transport`` (HTTP, retries), ``sse`` (the event-stream parser), ``values`` (JSON encoding),
``optuna`` (a study's trials as jobs), ``worker`` (a Python function as a job or a persistent worker).
"""
from typing import TYPE_CHECKING, Any, List

if TYPE_CHECKING:
    from .client import Client, Event
    from .errors import (Conflict, Forbidden, Invalid, JobFailed, NotFound, PoolStartError, PoolWarning, RateLimited,
                         SweepWarning, Unauthorized, Unavailable, WarmpoolError)
    from .objects import Job, Pool, Sweep, Tenant

__all__ = ["Client", "Event", "Job", "Sweep", "Pool", "Tenant", "WarmpoolError", "Unauthorized", "Forbidden", "NotFound",
           "Invalid", "Conflict", "RateLimited", "Unavailable", "PoolStartError", "JobFailed", "SweepWarning",
           "PoolWarning"]

# The names load on first use, so that a job's ``from warmpool import worker`` (or ``import warmpool_worker``)
# does not import the client's HTTP, threads and email parsing: a process per job would pay for them each time.
_HOME = {"Client": ".client", "Event": ".sse", "Job": ".objects", "Sweep": ".objects", "Pool": ".objects",
         "Tenant": ".objects"}
# what ``import warmpool`` used to load, so ``warmpool.errors.NotFound`` after it still works
_SUBMODULES = ("client", "errors", "objects", "progress", "sse", "transport", "values")

if not TYPE_CHECKING:  # mypy sees the imports above; an unknown name stays an error for it
    def __getattr__(name: str) -> Any:
        import importlib
        if name in _SUBMODULES:
            return importlib.import_module("." + name, __name__)
        if name not in __all__:
            raise AttributeError("module 'warmpool' has no attribute %r" % name)
        value = getattr(importlib.import_module(_HOME.get(name, ".errors"), __name__), name)
        globals()[name] = value
        return value

    def __dir__() -> List[str]:
        return sorted(set(globals()) | set(__all__))
