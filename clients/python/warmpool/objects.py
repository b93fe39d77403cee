"""What the client hands back: jobs (usable as futures), sweeps, pools and their tenants, each with a
plain ``repr`` and a small HTML table for Jupyter (``_repr_html_``)."""
from __future__ import annotations

import concurrent.futures
import dataclasses
import html
import json
import time
import urllib.parse
import uuid
import warnings
from typing import TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, Mapping, Optional, Set, Tuple

from . import errors
from .progress import Bar
from .sse import Event
from .values import JsonDict, Metrics, numbers

if TYPE_CHECKING:
    import pandas

    from .client import Client

__all__ = ["Job", "Sweep", "Pool", "Tenant", "numbers", "ENDED"]

ENDED = ("SUCCEEDED", "FAILED", "CANCELLED", "TIMED_OUT", "EARLY_STOPPED")
"""A job's end states, for a server whose job views do not say ``ended`` yet (newer ones do)."""

def _table(title: str, rows: Iterable[Tuple[str, Any]]) -> str:
    cells = "".join("<tr><th style='text-align:left'>%s</th><td style='text-align:left'>%s</td></tr>"
                    % (html.escape(str(k)), html.escape(v if isinstance(v, str) else json.dumps(v)))
                    for k, v in rows if v is not None)
    return "<div><b>%s</b><table>%s</table></div>" % (html.escape(title), cells)


def has_ended(data: Mapping[str, Any]) -> bool:
    """Whether a job's view shows an end: its ``ended`` when the server says it, else its state is an end state."""
    ended = data.get("ended")
    if isinstance(ended, bool):
        return ended
    return data.get("state") in ENDED


class Job(concurrent.futures.Future[Metrics]):
    """A submitted job, and a :class:`concurrent.futures.Future` of its metrics:
    ``result(timeout)`` returns the metrics dict of a SUCCEEDED job and raises
    :class:`~warmpool.errors.JobFailed` for any other end, so ``as_completed`` and ``wait`` work over many jobs.
    A background thread of the client waits for the job's end (``GET /jobs/{id}?wait=``). When the job's pool
    cannot start processors, the server ends that wait and ``result`` raises
    :class:`~warmpool.errors.PoolStartError` (a TimeoutError) with the pool's reason, at once rather than at
    ``timeout``; the job stays queued (``client.job(id)`` waits for it again once the pool is fixed)."""

    def __init__(self, client: Client, data: JsonDict) -> None:
        super().__init__()
        self._client = client
        self.data = data
        self.id: str = data["id"]
        if not self._settle(data):
            client._waiters.submit(self._watch)

    @property
    def state(self) -> Optional[str]:
        return self.data.get("state")

    @property
    def ended(self) -> bool:
        """Whether the job has ended (the server's ``ended``; from its state on a server that does not say)."""
        return has_ended(self.data)

    @property
    def type(self) -> Optional[str]:
        return self.data.get("type")

    @property
    def tenant(self) -> Optional[str]:
        """The tenant the job was submitted for (fair share), or None when the server does not say."""
        return self.data.get("tenant")

    @property
    def metrics(self) -> Optional[Metrics]:
        """The metrics the job left (NaN and infinities as floats), or None."""
        m: Optional[Metrics] = numbers((self.data.get("result") or {}).get("metrics"))
        return m

    @property
    def progress(self) -> Optional[JsonDict]:
        """The job's last report (``{"step": N, ...}``, NaN and infinities as floats), or None."""
        p: Optional[JsonDict] = numbers(self.data.get("progress"))
        return p

    def _path(self) -> str:
        return "/jobs/" + urllib.parse.quote(self.id, safe="")

    def _settle(self, data: JsonDict) -> bool:
        """Completes the future when ``data`` shows an end; True then."""
        self.data = data
        if not has_ended(data):
            return False
        try:
            if super().done():
                pass
            elif data.get("state") == "SUCCEEDED":
                self.set_result(self.metrics or {})
            else:
                self.set_exception(errors.JobFailed(data))
        except concurrent.futures.InvalidStateError:
            pass  # the waiter and a caller (cancel, refresh) saw the end at once: the first settled it
        return True

    def _watch(self) -> None:
        try:
            while not self._settle(self._client.request("GET", self._path() + "?wait=30")):
                pass
        except BaseException as e:  # the server went away for good: the future says so
            if not super().done():
                self.set_exception(e)

    def logs(self, follow: bool = False) -> Iterator[str]:
        """What the job printed, line by line: its live log (or its log tail when it kept none);
        with ``follow=True``, lines as the job prints them, until it ends."""
        return self._client.stream(self._path() + "/logs" + ("?follow=true" if follow else ""))

    def events(self) -> Iterator[Event]:
        """The job as it goes, as :class:`~warmpool.sse.Event` s: ``state`` (the job), ``log``
        (a line), ``report`` (metrics at a step), and last ``end`` (the ended job)."""
        for ev in self._client.events(self._path() + "/events"):
            if ev.name in ("state", "end") and isinstance(ev.data, dict):
                self._settle(ev.data)
            yield ev

    def refresh(self) -> Job:
        """Reads the job again; returns it."""
        self._settle(self._client.request("GET", self._path()))
        return self

    def cancel(self) -> bool:
        """Cancels the job on the server (a running job's process is killed); False when it had already ended.
        After a True, :meth:`cancelled` is True too and ``result()`` raises :class:`~warmpool.errors.JobFailed`
        (state CANCELLED, with what the job printed)."""
        try:
            self._settle(self._client.request("DELETE", self._path()))
            return True
        except errors.Conflict:
            self.refresh()
            return False

    def cancelled(self) -> bool:
        """Whether the job ended CANCELLED: by :meth:`cancel` or by anyone else's cancel on the server. (The future's
        own ``cancel()`` is this client's call to the server, so the job's state is what says it.)"""
        return super().cancelled() or self.state == "CANCELLED"

    def __repr__(self) -> str:
        return "Job(%s, %s)" % (self.id, self.state)

    def _repr_html_(self) -> str:
        r = self.data.get("result") or {}
        return _table("warmpool job " + self.id, [("type", self.type), ("state", self.state),
                                                  ("tenant", self.tenant),
                                                  ("processor", self.data.get("processor")),
                                                  ("submitted", self.data.get("submittedAt")),
                                                  ("finished", self.data.get("finishedAt")),
                                                  ("metrics", r.get("metrics")), ("error", self.data.get("error"))])


class Sweep:
    """A sweep: its trials run on the pool's warm processors. ``wait()`` until it ends, then
    ``best``, ``trials()`` or ``to_pandas()``."""

    def __init__(self, client: Client, data: JsonDict) -> None:
        self._client = client
        self._warned: Set[str] = set()
        self.data = data
        self.id: str = data["id"]

    @property
    def data(self) -> JsonDict:
        return self._data

    @data.setter
    def data(self, data: JsonDict) -> None:
        """Each new warning of the sweep (e.g. an objective no trial reports) is also a Python warning, once."""
        self._data = data
        for w in (data or {}).get("warnings") or []:
            if w not in self._warned:
                self._warned.add(w)
                warnings.warn("sweep %s: %s" % (data.get("id"), w), errors.SweepWarning, stacklevel=3)

    @property
    def state(self) -> Optional[str]:
        return self.data.get("state")

    @property
    def tenant(self) -> Optional[str]:
        """The tenant the sweep (and its trials) run for (fair share), or None when the server does not say."""
        return self.data.get("tenant")

    @property
    def warnings(self) -> List[str]:
        """What may be wrong although nothing failed, as sentences: e.g. an objective no trial reports."""
        return list(self.data.get("warnings") or [])

    @property
    def progress(self) -> JsonDict:
        p: JsonDict = self.data.get("progress") or {}
        return p

    @property
    def cost(self) -> JsonDict:
        """What the sweep cost so far: ``{"busySeconds", "trials", "coldStarts"}``: the run time of its ended
        trials summed (processor-seconds), how many trials ended, how many waited for a processor's start
        (docs/sweeps.md, "What a sweep cost"). Zeros when the server does not say."""
        c: JsonDict = {"busySeconds": 0.0, "trials": 0, "coldStarts": 0}
        c.update(self.data.get("cost") or {})
        return c

    @property
    def best(self) -> Optional[JsonDict]:
        """The best trial so far: ``{"trial", "value", "config", "metrics"}``, or None. A trial whose
        objective is NaN or infinite is never the best."""
        b: Optional[JsonDict] = numbers(self.data.get("best"))
        return b

    def done(self) -> bool:
        """Whether the sweep has ended (the server's ``ended`` when it says, else: it is no longer RUNNING)."""
        ended = self.data.get("ended")
        return ended if isinstance(ended, bool) else self.state != "RUNNING"

    def _path(self) -> str:
        return "/sweeps/" + urllib.parse.quote(self.id, safe="")

    def refresh(self) -> Sweep:
        self.data = self._client.request("GET", self._path())
        return self

    def wait(self, timeout: Optional[float] = None, progress: bool = False, every: float = 0.5) -> Sweep:
        """Waits until the sweep ends (raises TimeoutError after ``timeout`` seconds); returns it.
        ``progress=True`` shows a live bar (tqdm when it is installed, else a line on stderr)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        bar = Bar(self.progress.get("total") or 0) if progress else None
        try:
            while True:
                self.refresh()
                if bar:
                    bar.update(self.progress.get("done") or 0, self.best)
                if self.done():
                    return self
                if deadline is not None and time.monotonic() > deadline:
                    raise TimeoutError("sweep %s still %s after %s s" % (self.id, self.state, timeout))
                time.sleep(every)
        finally:
            if bar:
                bar.close()

    def events(self) -> Iterator[Event]:
        """The sweep as it goes: ``sweep`` (the whole sweep), ``trial`` (a trial as it ends), and last ``end``."""
        for ev in self._client.events(self._path() + "/events"):
            if ev.name in ("sweep", "end") and isinstance(ev.data, dict):
                self.data = ev.data
            yield ev

    def trials(self) -> List[JsonDict]:
        """Every trial as a dict (``id``, ``index``, ``state``, ``config``, ``metrics``, ...), in trial order;
        NaN and infinities in ``metrics`` and ``progress`` as floats."""
        if "trials" not in self.data or self.data["trials"] is None:
            self.refresh()
        out = []
        for t in self.data.get("trials") or []:
            t = dict(t)
            for k in ("metrics", "progress"):
                if k in t:
                    t[k] = numbers(t[k])
            out.append(t)
        return out

    def to_pandas(self) -> pandas.DataFrame:
        """The trials as a pandas DataFrame, config and metrics spread into columns (needs pandas)."""
        import pandas
        rows = []
        for t in self.trials():
            row = {"id": t.get("id"), "index": t.get("index"), "state": t.get("state")}
            row.update({"config." + k: v for k, v in (t.get("config") or {}).items()})
            row.update({"metrics." + k: v for k, v in (t.get("metrics") or {}).items()})
            rows.append(row)
        return pandas.DataFrame(rows)

    def cancel(self) -> Sweep:
        self.data = self._client.request("DELETE", self._path())
        return self

    def add_trial(self, config: Mapping[str, Any], key: Optional[str] = None) -> Job:
        """Adds a trial with ``config`` to an external sweep (``algorithm="external"``); its :class:`Job`.
        It runs at once when fewer than the sweep's ``parallelism`` trials are out, else when one ends.
        ``key`` (the driver's name for the trial) makes the call safe to repeat: the same key again is the
        trial added first, even from a restarted driver. Raises :class:`~warmpool.errors.Conflict` when the
        sweep has ended or has all its ``trials``."""
        body: JsonDict = {"config": dict(config)}
        if key is not None:
            body["key"] = key
        trial = self._client.request("POST", self._path() + "/trials", body)
        return Job(self._client, trial)

    def journal(self, start: int = 0) -> List[JsonDict]:
        """The entries of an external sweep's journal from index ``start`` (a driver's log, e.g. an Optuna study's)."""
        out: List[JsonDict] = []
        while True:
            page = self._client.request("GET", self._path() + "/journal?from=%d&limit=10000" % (start + len(out)))
            out.extend(page.get("entries") or [])
            if not page.get("entries") or page.get("next", 0) >= page.get("size", 0):
                return out

    def append_journal(self, entries: Iterable[Mapping[str, Any]]) -> int:
        """Appends JSON objects to an external sweep's journal (at most 1000 a call here, split as needed);
        how many entries it holds now. Each call has an id of its own, so a retry after a lost reply
        appends nothing twice."""
        batch = [dict(e) for e in entries]
        size = 0
        for i in range(0, len(batch), 1000):
            body = {"entries": batch[i:i + 1000], "id": uuid.uuid4().hex}
            size = int(self._client.request("POST", self._path() + "/journal", body)["size"])
        return size

    def __repr__(self) -> str:
        p = self.progress
        w = len(self.warnings)
        return "Sweep(%s, %s, %s/%s done%s)" % (self.id, self.state, p.get("done"), p.get("total"),
                                                "" if not w else ", %d warning%s" % (w, "" if w == 1 else "s"))

    def _repr_html_(self) -> str:
        p = self.progress
        rows: List[Tuple[str, Any]] = [
            ("type", self.data.get("type")), ("state", self.state), ("tenant", self.tenant),
            ("progress", "%s of %s done, %s running" % (p.get("done"), p.get("total"), p.get("active")))]
        rows += [("warning", w) for w in self.warnings]
        best = self.best
        if best:
            rows += [("best trial", best.get("trial")), ("best value", best.get("value")),
                     ("best config", best.get("config"))]
        return _table("warmpool sweep " + self.id, rows)


@dataclasses.dataclass(frozen=True)
class Tenant:
    """One tenant's part of a pool under fair share (``GET /pools/{type}``'s ``tenants``): its ``weight`` and
    cap (``max_running``, None for none), its jobs ``running`` and ``queued`` now, the processor time it used
    (``usage_seconds``) and its ``share`` of the pool; what its sweeps here cost (``sweeps``: ``busySeconds``,
    ``coldStarts``, ``idleSeconds``, docs/sweeps.md). ``name`` is the API's ``tenant``."""
    name: str
    weight: float
    max_running: Optional[int]
    running: int
    queued: int
    usage_seconds: float
    share: float
    sweeps: Mapping[str, Any] = dataclasses.field(default_factory=dict, hash=False)

    @classmethod
    def from_api(cls, data: Mapping[str, Any]) -> Tenant:
        max_running = data.get("maxRunning")
        return cls(name=str(data.get("tenant")), weight=float(data.get("weight") or 0),
                   max_running=None if max_running is None else int(max_running),
                   running=int(data.get("running") or 0), queued=int(data.get("queued") or 0),
                   usage_seconds=float(data.get("usageSeconds") or 0), share=float(data.get("share") or 0),
                   sweeps=dict(data.get("sweeps") or {}))


class Pool(Dict[str, Any]):
    """A pool as the API shows it (a dict: ``spec``, ``state``, ``status``, ``processors``, ``tenants``)."""

    def __init__(self, client: Client, data: Optional[JsonDict]) -> None:
        super().__init__(data or {})
        self._client = client

    @property
    def type(self) -> Optional[str]:
        return self.get("type")

    @property
    def runtime(self) -> Optional[str]:
        """Where its processors live: ``"local"``, ``"docker"`` or ``"kubernetes"`` (stored with the pool)."""
        return (self.get("spec") or {}).get("runtime")

    @property
    def tenants(self) -> List[Tenant]:
        """The pool's tenants under fair share, as :class:`Tenant` s; empty when the server shows none."""
        return [Tenant.from_api(t) for t in self.get("tenants") or []]

    @property
    def start_error(self) -> Optional[str]:
        """Why the pool's processors cannot start (its ``startError``'s ``reason``: e.g. a persistent worker that
        exited at once, with its last words), or None while they can."""
        e = self.get("startError")
        return e.get("reason") if isinstance(e, dict) else None

    @property
    def warnings(self) -> List[str]:
        """What the server warned of when this pool was put (sizes its machine cannot hold); [] otherwise."""
        return list(self.get("warnings") or [])

    def __repr__(self) -> str:
        s = self.get("status") or {}
        why = self.start_error
        return "Pool(%s, %s, idle %s, busy %s, queued %s%s)" % (
            self.type, self.get("state"), s.get("idle"), s.get("busy"), s.get("queued"),
            "" if why is None else ", cannot start: %s" % why)

    def _repr_html_(self) -> str:
        s = self.get("status") or {}
        rows: List[Tuple[str, Any]] = [
            ("state", self.get("state")), ("command", (self.get("spec") or {}).get("command")),
            ("starting", s.get("starting")), ("idle", s.get("idle")), ("busy", s.get("busy")),
            ("draining", s.get("draining")), ("queued", s.get("queued")), ("start error", self.start_error)]
        rows += [("tenant " + t.name, "%d running, %d queued, share %.2f" % (t.running, t.queued, t.share))
                 for t in self.tenants]
        return _table("warmpool pool " + str(self.type), rows)
