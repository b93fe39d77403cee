"""The API's verbs: pools, jobs (one, many, submit-and-wait), sweeps and cancelling, each call a
request of the :class:`~warmpool.transport.Transport` it extends, each answer an object of
:mod:`warmpool.objects`."""
from __future__ import annotations

import concurrent.futures
import urllib.parse
import uuid
import warnings
from typing import Any, Dict, Iterable, List, Mapping, Optional, Union

from . import errors
from .objects import Job, Pool, Sweep
from .sse import Event
from .transport import DEFAULT_URL, Transport
from .values import JsonDict, api_names, caller_names, timeout_alias

__all__ = ["Client", "Event", "DEFAULT_URL"]

BATCH_MAX = 1000
"""Jobs in one ``POST /jobs/batch`` at most (the API's bound); ``map`` sends more in several."""


def _quote(id: str) -> str:
    return urllib.parse.quote(id, safe="")


def _query(params: Mapping[str, Any]) -> str:
    return urllib.parse.urlencode({k: v for k, v in params.items() if v})


def _idempotent() -> Dict[str, str]:
    """A key of its own for a create: a retried one is not created twice."""
    return {"Idempotency-Key": uuid.uuid4().hex}


class Client(Transport):
    """A warmpool server: ``Client()`` reads ``WARMPOOL_URL`` (default http://127.0.0.1:8080) and
    ``WARMPOOL_TOKEN`` (default: the run command's ``.warmpool/token``).

    Connections are kept alive (one per thread). A call answered 503 or 429 is tried again,
    honouring ``Retry-After``, up to ``retries`` times; every submit carries an
    ``Idempotency-Key`` of its own, so a submit that is retried never runs twice. Up to ``waiters``
    threads wait for submitted jobs' ends, so that a :class:`Job` completes as a future.
    """

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, retries: int = 5,
                 timeout: float = 60.0, waiters: int = 16) -> None:
        super().__init__(url, token, retries, timeout)
        self._waiters = concurrent.futures.ThreadPoolExecutor(max_workers=waiters, thread_name_prefix="warmpool-wait")

    # ---- pools

    def put_pool(self, type: str, **spec: Any) -> Pool:
        """Creates or updates the pool of ``type``: ``put_pool("train", command=["python3", "t.py"], min_idle=2)``.
        Every field of ``PUT /pools/{type}`` is a keyword in snake_case, e.g. ``network="outbound"``
        (a local pool's jobs reach no host port by default: ``"none"``; see docs/api.md)."""
        pool = Pool(self, self.request("PUT", "/pools/" + _quote(type), api_names(spec), names=caller_names(spec)))
        for w in pool.warnings:  # taken as asked, but its machine cannot hold it: said where the caller looks
            warnings.warn("pool %s: %s" % (type, w), errors.PoolWarning, stacklevel=2)
        return pool

    def pools(self) -> List[Pool]:
        return [Pool(self, p) for p in self.request("GET", "/pools")]

    def pool(self, type: str) -> Pool:
        """The pool of ``type``: its spec, state, processors and (under fair share) ``tenants``."""
        return Pool(self, self.request("GET", "/pools/" + _quote(type)))

    def delete_pool(self, type: str) -> Pool:
        """Drains the pool: queued jobs are cancelled, idle processors retired, busy ones after their job."""
        return Pool(self, self.request("DELETE", "/pools/" + _quote(type)))

    # ---- jobs

    @staticmethod
    def _job_body(type: str, config: Any, args: Optional[Iterable[str]], env: Optional[Mapping[str, str]],
                  opts: Mapping[str, Any]) -> JsonDict:
        body: JsonDict = {"type": type}
        if config is not None:
            body["config"] = config
        if args is not None:
            body["args"] = list(args)
        if env is not None:
            body["env"] = dict(env)
        body.update(api_names(opts))
        return body

    def submit(self, type: str, config: Any = None, args: Optional[Iterable[str]] = None,
               env: Optional[Mapping[str, str]] = None, **opts: Any) -> Job:
        """Submits one job (``priority``, ``timeout_seconds`` or ``timeout``, ``max_attempts`` as keywords); a :class:`Job`.
        ``config`` may hold numpy values, dates and paths (sent as lists and numbers, ISO 8601, text)."""
        opts, names = timeout_alias(opts)
        reply = self.request("POST", "/jobs", self._job_body(type, config, args, env, opts), headers=_idempotent(),
                             names=names)
        return Job(self, reply)

    def run(self, type: str, config: Any = None, args: Optional[Iterable[str]] = None,
            env: Optional[Mapping[str, str]] = None, timeout: float = 300, **opts: Any) -> Job:
        """Submits and waits in one request (``POST /jobs?wait=``); the ended :class:`Job` (or running, after ``timeout``)."""
        reply = self.request("POST", "/jobs?wait=%d" % max(0, int(timeout)), self._job_body(type, config, args, env, opts),
                             headers=_idempotent(), names=caller_names(opts))
        return Job(self, reply)

    def map(self, type: str, configs: Iterable[Any], args: Optional[Iterable[str]] = None,
            env: Optional[Mapping[str, str]] = None, **opts: Any) -> List[Job]:
        """One job per config, in one request (``POST /jobs/batch``, all or none, at most 1000); a list of :class:`Job`.
        ``timeout=`` is the jobs' ``timeout_seconds``."""
        opts, names = timeout_alias(opts)
        args = None if args is None else list(args)
        jobs = [self._job_body(type, c, args, env, opts) for c in configs]
        out: List[Job] = []
        for i in range(0, len(jobs), BATCH_MAX):
            reply = self.request("POST", "/jobs/batch", {"jobs": jobs[i:i + BATCH_MAX]}, headers=_idempotent(),
                                 names=names)
            out.extend(Job(self, j) for j in reply["jobs"])
        return out

    def job(self, id: str) -> Job:
        return Job(self, self.request("GET", "/jobs/" + _quote(id)))

    def jobs(self, type: Optional[str] = None, state: Optional[str] = None, limit: int = 50) -> List[Job]:
        return [Job(self, j) for j in self.request("GET", "/jobs?" + _query({"type": type, "state": state, "limit": limit}))]

    # ---- sweeps

    def sweep(self, type: str, space: Optional[Mapping[str, Any]] = None, **opts: Any) -> Sweep:
        """Starts a sweep over ``space`` (``algorithm``, ``trials``, ``parallelism``, ``objective``, ... as keywords).
        With ``algorithm="external"`` the caller adds each trial (:meth:`Sweep.add_trial`) and ``space`` may be None."""
        opts, names = timeout_alias(opts)
        body: JsonDict = {"type": type}
        if space is not None:
            body["space"] = space
        body.update(api_names(opts))
        return Sweep(self, self.request("POST", "/sweeps", body, headers=_idempotent(), names=names))

    def sweeps(self, type: Optional[str] = None, limit: int = 50) -> List[Sweep]:
        return [Sweep(self, s) for s in self.request("GET", "/sweeps?" + _query({"type": type, "limit": limit}))]

    def get_sweep(self, id: str) -> Sweep:
        return Sweep(self, self.request("GET", "/sweeps/" + _quote(id)))

    def cancel(self, id: str) -> Union[Sweep, Job]:
        """Cancels a sweep (its open trials with it) or a job by its id; the cancelled :class:`Sweep` or :class:`Job`.
        Raises :class:`~warmpool.errors.Conflict` when it had already ended, NotFound when there is no such id."""
        try:
            return Sweep(self, self.request("DELETE", "/sweeps/" + _quote(id)))
        except errors.NotFound:
            return Job(self, self.request("DELETE", "/jobs/" + _quote(id)))

    def close(self) -> None:
        """Closes every connection this client opened, on any thread (a later call opens a new one)."""
        self._waiters.shutdown(wait=False)
        super().close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return "Client(%r)" % self.url

