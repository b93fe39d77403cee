"""What the client hands back: jobs (usable as futures), sweeps and pools, each with a plain
``repr`` and a small HTML table for Jupyter (``_repr_html_``)."""
import concurrent.futures
import html
import json
import sys
import time
import urllib.parse
import warnings

from . import errors

__all__ = ["Job", "Sweep", "Pool", "numbers"]

ENDED = ("SUCCEEDED", "FAILED", "CANCELLED", "TIMED_OUT", "EARLY_STOPPED")

# The API returns NaN and the infinities a job wrote as these strings (strict JSON has no other
# way to carry them); the client hands them back as the floats the job wrote.
NON_FINITE = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


def numbers(value):
    """Metrics as the job wrote them: "NaN", "Infinity", "-Infinity" as floats, in nested dicts and lists too."""
    if isinstance(value, str):
        return NON_FINITE.get(value, value)
    if isinstance(value, dict):
        return {k: numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [numbers(v) for v in value]
    return value


def _table(title, rows):
    cells = "".join("<tr><th style='text-align:left'>%s</th><td style='text-align:left'>%s</td></tr>"
                    % (html.escape(str(k)), html.escape(v if isinstance(v, str) else json.dumps(v)))
                    for k, v in rows if v is not None)
    return "<div><b>%s</b><table>%s</table></div>" % (html.escape(title), cells)


class Job(concurrent.futures.Future):
    """A submitted job, and a :class:`concurrent.futures.Future` of its metrics:
    ``result(timeout)`` returns the metrics dict of a SUCCEEDED job and raises
    :class:`~warmpool.errors.JobFailed` for any other end, so ``as_completed`` and ``wait`` work over many jobs.
    A background thread of the client waits for the job's end (``GET /jobs/{id}?wait=``)."""

    def __init__(self, client, data):
        super().__init__()
        self._client = client
        self.data = data
        self.id = data["id"]
        if not self._settle(data):
            client._waiters.submit(self._watch)

    @property
    def state(self):
        return self.data.get("state")

    @property
    def type(self):
        return self.data.get("type")

    @property
    def metrics(self):
        """The metrics the job left (NaN and infinities as floats), or None."""
        return numbers((self.data.get("result") or {}).get("metrics"))

    @property
    def progress(self):
        """The job's last report (``{"step": N, ...}``, NaN and infinities as floats), or None."""
        return numbers(self.data.get("progress"))

    def _path(self):
        return "/jobs/" + urllib.parse.quote(self.id, safe="")

    def _settle(self, data):
        """Completes the future when ``data`` shows an end; True then."""
        self.data = data
        if data.get("state") not in ENDED:
            return False
        if not super().done():
            if data["state"] == "SUCCEEDED":
                self.set_result(self.metrics or {})
            else:
                self.set_exception(errors.JobFailed(data))
        return True

    def _watch(self):
        try:
            while not self._settle(self._client.request("GET", self._path() + "?wait=30")):
                pass
        except BaseException as e:  # the server went away for good: the future says so
            if not super().done():
                self.set_exception(e)

    def logs(self, follow=False):
        """What the job printed, line by line: its live log (or its log tail when it kept none);
        with ``follow=True``, lines as the job prints them, until it ends."""
        return self._client.stream(self._path() + "/logs" + ("?follow=true" if follow else ""))

    def events(self):
        """The job as it goes, as :class:`~warmpool.client.Event` s: ``state`` (the job), ``log``
        (a line), ``report`` (metrics at a step), and last ``end`` (the ended job)."""
        for ev in self._client.events(self._path() + "/events"):
            if ev.name in ("state", "end") and isinstance(ev.data, dict):
                self._settle(ev.data)
            yield ev

    def refresh(self):
        """Reads the job again; returns it."""
        self._settle(self._client.request("GET", self._path()))
        return self

    def cancel(self):
        """Cancels the job on the server (a running job's process is killed); False when it had already ended."""
        try:
            self._settle(self._client.request("DELETE", self._path()))
            return True
        except errors.Conflict:
            self.refresh()
            return False

    def __repr__(self):
        return "Job(%s, %s)" % (self.id, self.state)

    def _repr_html_(self):
        r = self.data.get("result") or {}
        return _table("warmpool job " + self.id, [("type", self.type), ("state", self.state),
                                                  ("processor", self.data.get("processor")),
                                                  ("submitted", self.data.get("submittedAt")),
                                                  ("finished", self.data.get("finishedAt")),
                                                  ("metrics", r.get("metrics")), ("error", self.data.get("error"))])


class Sweep:
    """A sweep: its trials run on the pool's warm processors. ``wait()`` until it ends, then
    ``best``, ``trials()`` or ``to_pandas()``."""

    def __init__(self, client, data):
        self._client = client
        self._warned = set()
        self.data = data
        self.id = data["id"]

    @property
    def data(self):
        return self._data

    @data.setter
    def data(self, data):
        """Each new warning of the sweep (e.g. an objective no trial reports) is also a Python warning, once."""
        self._data = data
        for w in (data or {}).get("warnings") or []:
            if w not in self._warned:
                self._warned.add(w)
                warnings.warn("sweep %s: %s" % (data.get("id"), w), errors.SweepWarning, stacklevel=3)

    @property
    def state(self):
        return self.data.get("state")

    @property
    def warnings(self):
        """What may be wrong although nothing failed, as sentences: e.g. an objective no trial reports."""
        return list(self.data.get("warnings") or [])

    @property
    def progress(self):
        return self.data.get("progress") or {}

    @property
    def best(self):
        """The best trial so far: ``{"trial", "value", "config", "metrics"}``, or None. A trial whose
        objective is NaN or infinite is never the best."""
        return numbers(self.data.get("best"))

    def done(self):
        return self.state != "RUNNING"

    def refresh(self):
        self.data = self._client.request("GET", "/sweeps/" + urllib.parse.quote(self.id, safe=""))
        return self

    def wait(self, timeout=None, progress=False, every=0.5):
        """Waits until the sweep ends (raises TimeoutError after ``timeout`` seconds); returns it.
        ``progress=True`` shows a live bar (tqdm when it is installed, else a line on stderr)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        bar = _Bar(self.progress.get("total") or 0) if progress else None
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

    def events(self):
        """The sweep as it goes: ``sweep`` (the whole sweep), ``trial`` (a trial as it ends), and last ``end``."""
        for ev in self._client.events("/sweeps/" + urllib.parse.quote(self.id, safe="") + "/events"):
            if ev.name in ("sweep", "end") and isinstance(ev.data, dict):
                self.data = ev.data
            yield ev

    def trials(self):
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

    def to_pandas(self):
        """The trials as a pandas DataFrame, config and metrics spread into columns (needs pandas)."""
        import pandas
        rows = []
        for t in self.trials():
            row = {"id": t.get("id"), "index": t.get("index"), "state": t.get("state")}
            row.update({"config." + k: v for k, v in (t.get("config") or {}).items()})
            row.update({"metrics." + k: v for k, v in (t.get("metrics") or {}).items()})
            rows.append(row)
        return pandas.DataFrame(rows)

    def cancel(self):
        self.data = self._client.request("DELETE", "/sweeps/" + urllib.parse.quote(self.id, safe=""))
        return self

    def __repr__(self):
        p = self.progress
        w = len(self.warnings)
        return "Sweep(%s, %s, %s/%s done%s)" % (self.id, self.state, p.get("done"), p.get("total"),
                                                "" if not w else ", %d warning%s" % (w, "" if w == 1 else "s"))

    def _repr_html_(self):
        p = self.progress
        rows = [("type", self.data.get("type")), ("state", self.state),
                ("progress", "%s of %s done, %s running" % (p.get("done"), p.get("total"), p.get("active")))]
        rows += [("warning", w) for w in self.warnings]
        if self.best:
            rows += [("best trial", self.best.get("trial")), ("best value", self.best.get("value")),
                     ("best config", self.best.get("config"))]
        return _table("warmpool sweep " + self.id, rows)


class _Bar:
    def __init__(self, total):
        self.done = 0
        try:
            import warnings
            with warnings.catch_warnings():  # in a kernel without ipywidgets, tqdm.auto falls back to text, and says so
                warnings.simplefilter("ignore")
                from tqdm.auto import tqdm
            self.tqdm = tqdm(total=total, unit="trial")
        except ImportError:
            self.tqdm = None
            self.total = total

    def update(self, done, best):
        if self.tqdm is not None:
            self.tqdm.update(done - self.done)
            if best:
                self.tqdm.set_postfix(best=best.get("value"))
        else:
            sys.stderr.write("\r%d/%d trials%s" % (done, self.total, "" if not best else ", best %s" % best.get("value")))
        self.done = done

    def close(self):
        if self.tqdm is not None:
            self.tqdm.close()
        else:
            sys.stderr.write("\n")


class Pool(dict):
    """A pool as the API shows it (a dict: ``spec``, ``state``, ``status``, ``processors``)."""

    def __init__(self, client, data):
        super().__init__(data or {})
        self._client = client

    @property
    def type(self):
        return self.get("type")

    def __repr__(self):
        s = self.get("status") or {}
        return "Pool(%s, %s, idle %s, busy %s, queued %s)" % (self.type, self.get("state"), s.get("idle"), s.get("busy"),
                                                              s.get("queued"))

    def _repr_html_(self):
        s = self.get("status") or {}
        return _table("warmpool pool " + str(self.type), [("state", self.get("state")), ("command", (self.get("spec") or {}).get("command")),
                                                          ("starting", s.get("starting")), ("idle", s.get("idle")),
                                                          ("busy", s.get("busy")), ("draining", s.get("draining")),
                                                          ("queued", s.get("queued"))])
