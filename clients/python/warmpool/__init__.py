"""warmpool from Python: submit ML jobs to warm processors and wait for their metrics.

    import warmpool
    wp = warmpool.Client()                  # WARMPOOL_URL, WARMPOOL_TOKEN (or .warmpool/token)
    wp.put_pool("train", command=["python3", "train.py"], min_idle=2)
    job = wp.submit("train", config={"lr": 0.01})
    print(job.result(timeout=600))          # the job's metrics; JobFailed if it did not succeed

Standard library only; tqdm (progress bars) and pandas (``Sweep.to_pandas``) are used when installed.
"""
from .client import Client, Event
from .errors import (WarmpoolError, Unauthorized, Forbidden, NotFound, Invalid, Conflict, RateLimited, Unavailable,
                     JobFailed, SweepWarning)
from .objects import Job, Sweep, Pool

__all__ = ["Client", "Event", "Job", "Sweep", "Pool", "WarmpoolError", "Unauthorized", "Forbidden", "NotFound", "Invalid",
           "Conflict", "RateLimited", "Unavailable", "JobFailed", "SweepWarning"]
