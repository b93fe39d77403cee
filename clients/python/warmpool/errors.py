"""The errors a warmpool call raises: each carries the problem+json the server answered."""
from __future__ import annotations

import re
import sys
from typing import Any, Dict, Mapping, Optional, Type

__all__ = ["WarmpoolError", "Unauthorized", "Forbidden", "NotFound", "Invalid", "Conflict", "RateLimited",
           "Unavailable", "PoolStartError", "JobFailed", "SweepWarning", "PoolWarning"]


class WarmpoolError(Exception):
    """A refused or failed call. ``type``, ``status``, ``detail`` and ``field`` come from the
    server's problem+json (RFC 9457); ``problem`` is the whole of it."""

    def __init__(self, detail: str, status: Optional[int] = None, type: Optional[str] = None,
                 field: Optional[str] = None, problem: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.status = status
        self.type = type
        self.field = field
        self.problem: Dict[str, Any] = problem or {}

    def __str__(self) -> str:
        where = " (field %s)" % self.field if self.field else ""
        return "%s%s%s" % ("%s: " % self.status if self.status else "", self.detail, where)


class Unauthorized(WarmpoolError):
    """401: no token, or one the server does not know (set WARMPOOL_TOKEN)."""


class Forbidden(WarmpoolError):
    """403: the token's roles do not allow this."""


class NotFound(WarmpoolError):
    """404: no such pool, job or sweep."""


class Invalid(WarmpoolError):
    """400: a bad request; ``field`` names what to change."""


class Conflict(WarmpoolError):
    """409 or 422: the request conflicts with the state (an ended job, a reused Idempotency-Key)."""


class RateLimited(WarmpoolError):
    """429 after the retries: too many submits, or a full queue."""


class Unavailable(WarmpoolError):
    """503 after the retries, or the server could not be reached."""


if sys.version_info >= (3, 11):
    _Timeout = TimeoutError  # concurrent.futures.TimeoutError is this one since 3.11
else:
    import concurrent.futures

    class _Timeout(TimeoutError, concurrent.futures.TimeoutError):
        """What a future's ``result(timeout)`` raises before 3.11, and the builtin one."""


class PoolStartError(Unavailable, _Timeout):
    """503 ``pool-cannot-start``: the job waits in a pool whose processors cannot start, and the wait says why
    rather than run out: ``pool``, ``job_id`` and ``reason`` (the pool's ``startError``, as ``Pool.start_error``
    shows it). The job stays queued and runs once a processor starts (fix the pool with ``put_pool``, or cancel
    the job). A :class:`TimeoutError`, as the wait it ends early is one, so code that catches that still does."""

    def __init__(self, detail: str, status: Optional[int] = None, type: Optional[str] = None,
                 field: Optional[str] = None, problem: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(detail, status=status, type=type, field=field, problem=problem)
        start_error = self.problem.get("startError") or {}
        self.pool: Optional[str] = self.problem.get("pool")
        self.job_id: Optional[str] = self.problem.get("job")
        self.reason: Optional[str] = start_error.get("reason") if isinstance(start_error, dict) else None


class JobFailed(WarmpoolError):
    """A job ended other than SUCCEEDED: ``state``, ``error`` and the tail of its log."""

    def __init__(self, job: Dict[str, Any]) -> None:
        self.job = job
        self.state: Optional[str] = job.get("state")
        self.error: Optional[str] = job.get("error")
        self.log_tail: str = (job.get("result") or {}).get("logTail") or ""
        detail = "job %s ended %s: %s" % (job.get("id"), self.state, self.error or "no error given")
        if self.log_tail:
            detail += "\n--- log tail ---\n" + self.log_tail.rstrip()
        super().__init__(detail, type="job-" + str(self.state).lower().replace("_", "-"))


class SweepWarning(UserWarning):
    """A sweep's warning (``Sweep.warnings``, and ``warmpool.optuna.optimize``'s): something may be wrong although
    nothing failed, e.g. an objective metric no trial reports. Turn it into an error with
    ``warnings.simplefilter("error", SweepWarning)``."""


class PoolWarning(UserWarning):
    """What the server warned of when it took a pool (``put_pool``): sizes its machine cannot hold, e.g. ``min_idle``
    far beyond its cores. The pool was taken as asked; ``Pool.warnings`` has the sentences too."""


_BY_STATUS: Dict[int, Type[WarmpoolError]] = {400: Invalid, 401: Unauthorized, 403: Forbidden, 404: NotFound, 409: Conflict, 422: Conflict,
              429: RateLimited, 503: Unavailable}


def from_problem(status: int, problem: Any, names: Optional[Mapping[str, str]] = None) -> WarmpoolError:
    """The error for an HTTP status and its problem+json body (a dict, or None when it was not JSON); ``names``
    maps the API's field names to the caller's (idleTimeoutSeconds -> idle_timeout_seconds), used in ``field``
    and ``detail`` so the error speaks of what the caller wrote."""
    problem = problem if isinstance(problem, dict) else {}
    detail = str(problem.get("detail") or problem.get("title") or "HTTP %s" % status)
    field: Optional[str] = problem.get("field")
    names = _with_known_fields(problem, names)
    for api, caller in sorted((names or {}).items(), key=lambda kv: -len(kv[0])):
        detail = re.sub(r"\b%s\b" % re.escape(api), caller, detail)
        if field:
            field = re.sub(r"(^|[.\]])%s\b" % re.escape(api), lambda m: m.group(1) + caller, field)
    cls: Type[WarmpoolError] = _BY_STATUS.get(status, WarmpoolError)
    if cannot_start(status, problem):
        cls = PoolStartError
    return cls(detail, status=status, type=problem.get("type"), field=field, problem=problem)


def cannot_start(status: int, problem: Any) -> bool:
    """Whether an answer says the job's pool cannot start processors (503 ``pool-cannot-start``): no retry
    would change it before the pool is fixed."""
    return status == 503 and isinstance(problem, dict) and str(problem.get("type") or "").endswith("/pool-cannot-start")


def _with_known_fields(problem: Mapping[str, Any], names: Optional[Mapping[str, str]]) -> Optional[Mapping[str, str]]:
    """For an unknown top-level keyword (``min_idel=``), the known fields the server lists (``knownFields``) named
    as the caller names them (``min_idle``, not ``minIdle``) when the caller wrote snake_case, so that one sentence
    does not mix the client's names with the API's. ``names`` is None for a call that took no keywords."""
    field, known = problem.get("field"), problem.get("knownFields")
    if names is None or not isinstance(field, str) or not isinstance(known, list) or re.search(r"[.\[<]", field):
        return names
    if names.get(field, field) != names.get(field, field).lower():
        return names  # the caller wrote camelCase (maxAttemps=): the API's names are theirs
    out = dict(names)
    for k in known:
        if isinstance(k, str):
            snake = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", k).lower()
            if snake != k:
                out.setdefault(k, snake)
    return out
