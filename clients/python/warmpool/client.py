"""The HTTP client: connections, retries, idempotent submits, and the objects it hands back."""
import concurrent.futures
import datetime
import decimal
import http.client
import json
import math
import os
import threading
import time
import urllib.parse
import uuid

from . import errors
from .objects import Job, Sweep, Pool, numbers

__all__ = ["Client", "Event"]


class Event:
    """One Server-Sent Event: ``name`` (``state``, ``log``, ``report``, ``end``; ``sweep``, ``trial``),
    ``id`` (log lines and reports: what a reconnect resumes after) and ``data`` (a log line as text;
    the rest decoded from JSON; a report's "NaN", "Infinity", "-Infinity" as floats)."""
    __slots__ = ("name", "id", "data")

    def __init__(self, name, id, text):
        self.name, self.id = name, id
        if name == "log":
            self.data = text
        else:
            try:
                self.data = json.loads(text)
            except ValueError:
                self.data = text
            if name == "report":
                self.data = numbers(self.data)  # "NaN", "Infinity" as the floats the job reported

    def __repr__(self):
        return "Event(%s, %r)" % (self.name, self.data if self.name == "log" else "...")

DEFAULT_URL = "http://127.0.0.1:8080"


def _camel(name):
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def _api_names(spec):
    """snake_case keywords as the API's names (min_idle -> minIdle); nested dicts (env, template) are left as they are."""
    return {_camel(k): v for k, v in spec.items() if v is not None}


def _caller_names(spec):
    """The API's name -> the keyword the caller wrote, where they differ (minIdle -> min_idle), for error messages."""
    return {_camel(k): k for k in spec if _camel(k) != k}


def _jsonable(value):
    """What JSON can carry, from what a notebook holds: numpy scalars and arrays (by ``tolist``), dates and
    times (ISO 8601), paths (their text), tuples and sets (lists); NaN and the infinities as the strings
    "NaN", "Infinity", "-Infinity", the one form the API uses for them (strict JSON has no other)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else ("NaN" if value != value else "Infinity" if value > 0 else "-Infinity")
    if value is None or isinstance(value, (str, int, bool)):
        return value
    if isinstance(value, dict):
        return {(k if isinstance(k, str) else str(_jsonable(k))): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_jsonable(v) for v in value), key=repr)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, decimal.Decimal):
        return _jsonable(float(value))
    if hasattr(value, "tolist"):  # numpy (and array-likes): scalars to int/float/bool, arrays to nested lists
        return _jsonable(value.tolist())
    raise TypeError("warmpool cannot send a %s in JSON (value %r); pass numbers, strings, lists and dicts"
                    % (type(value).__name__, value))


def _timeout_alias(opts):
    """``timeout=`` on a submit is the job's ``timeout_seconds``, as a caller of most Python APIs would write it.
    Returns the keywords with it renamed, and the names for errors (timeoutSeconds -> timeout then)."""
    names = _caller_names(opts)
    if "timeout" in opts:
        if opts.get("timeout_seconds") is not None:
            raise TypeError("give the job's timeout once: timeout= or timeout_seconds=, not both")
        opts = dict(opts)
        opts["timeout_seconds"] = opts.pop("timeout")
        names["timeoutSeconds"] = "timeout"
    return opts, names


def _find_token(start):
    """The run command's admin token: .warmpool/token in the working directory or one above it."""
    d = os.path.abspath(start)
    while True:
        f = os.path.join(d, ".warmpool", "token")
        if os.path.isfile(f):
            with open(f) as fh:
                return fh.read().strip()
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


class Client:
    """A warmpool server: ``Client()`` reads ``WARMPOOL_URL`` (default http://127.0.0.1:8080) and
    ``WARMPOOL_TOKEN`` (default: the run command's ``.warmpool/token``).

    Connections are kept alive (one per thread). A call answered 503 or 429 is tried again,
    honouring ``Retry-After``, up to ``retries`` times; every submit carries an
    ``Idempotency-Key`` of its own, so a submit that is retried never runs twice.
    """

    def __init__(self, url=None, token=None, retries=5, timeout=60.0, waiters=16):
        self.url = (url or os.environ.get("WARMPOOL_URL") or DEFAULT_URL).rstrip("/")
        self.token = token or os.environ.get("WARMPOOL_TOKEN") or _find_token(os.getcwd())
        self.retries = retries
        self.timeout = timeout
        parts = urllib.parse.urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("WARMPOOL_URL must look like http://host:port, not %r" % self.url)
        self._scheme, self._host, self._port = parts.scheme, parts.hostname, parts.port
        self._base_path = parts.path.rstrip("/")
        self._local = threading.local()
        self._open = set()  # every thread's connection, for close()
        self._open_lock = threading.Lock()
        self._waiters = concurrent.futures.ThreadPoolExecutor(max_workers=waiters, thread_name_prefix="warmpool-wait")

    # ---- transport

    def _connection(self, fresh=False):
        c = getattr(self._local, "conn", None)
        if c is None or fresh:
            if c is not None:
                self._drop(c)
            cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
            c = cls(self._host, self._port, timeout=self.timeout + 330)  # a ?wait= holds up to 300 s
            self._local.conn = c
            with self._open_lock:
                self._open.add(c)
        return c

    def _drop(self, c):
        c.close()
        with self._open_lock:
            self._open.discard(c)

    def request(self, method, path, body=None, headers=None, ok=(200, 201, 202), names=None):
        """One API call; the decoded JSON reply. Raises a :class:`WarmpoolError` for a refusal, naming a
        field as the caller wrote it (``names``: the API's name -> the caller's, e.g. minIdle -> min_idle)."""
        h = {"Accept": "application/json"}
        if self.token:
            h["Authorization"] = "Bearer " + self.token
        data = None
        if body is not None:
            data = json.dumps(_jsonable(body), allow_nan=False).encode()
            h["Content-Type"] = "application/json"
        h.update(headers or {})
        attempt = 0
        while True:
            try:
                conn = self._connection(fresh=attempt > 0)
                conn.request(method, self._base_path + path, body=data, headers=h)
                r = conn.getresponse()
                raw = r.read()
            except (ConnectionError, http.client.HTTPException, OSError) as e:
                if attempt >= self.retries:
                    raise errors.Unavailable("warmpool at %s cannot be reached: %s" % (self.url, e)) from e
                attempt += 1
                time.sleep(min(0.1 * 2 ** attempt, 5))
                continue
            if r.status in (429, 503) and attempt < self.retries:
                attempt += 1
                time.sleep(self._retry_after(r, attempt))
                continue
            try:
                reply = json.loads(raw) if raw else None
            except ValueError:
                reply = None
            if r.status in ok:
                return reply
            raise errors.from_problem(r.status, reply, names)

    def stream(self, path, headers=None):
        """The lines of a streamed answer (text, or Server-Sent Events) as they come, on a
        connection of its own; raises a :class:`WarmpoolError` for a refusal."""
        h = {"Accept": "*/*"}
        if self.token:
            h["Authorization"] = "Bearer " + self.token
        h.update(headers or {})
        cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
        conn = cls(self._host, self._port, timeout=self.timeout + 330)
        try:
            try:
                conn.request("GET", self._base_path + path, headers=h)
                r = conn.getresponse()
            except (ConnectionError, http.client.HTTPException, OSError) as e:
                raise errors.Unavailable("warmpool at %s cannot be reached: %s" % (self.url, e)) from e
            if r.status != 200:
                raw = r.read()
                try:
                    reply = json.loads(raw) if raw else None
                except ValueError:
                    reply = None
                raise errors.from_problem(r.status, reply)
            while True:
                line = r.readline()
                if not line:
                    return
                yield line.decode("utf-8", "replace").rstrip("\r\n")
        finally:
            conn.close()

    def events(self, path, last_event_id=None):
        """Server-Sent Events from ``path`` as :class:`Event` s (``name``, ``id``, ``data``: a log
        line as text, the rest decoded from JSON) until the server ends the stream after its ``end``
        event; a connection lost before it is made again, resuming after the last event's id."""
        attempt = 0
        while True:
            name, eid, data, ended = None, None, [], False
            try:
                headers = {"Accept": "text/event-stream"}
                if last_event_id:
                    headers["Last-Event-ID"] = last_event_id
                for line in self.stream(path, headers):
                    if line == "":
                        if data:
                            ev = Event(name or "message", eid, "\n".join(data))
                            if eid:
                                last_event_id = eid
                            ended = ev.name == "end"
                            attempt = 0
                            yield ev
                        name, eid, data = None, None, []
                    elif line.startswith(":"):
                        continue
                    else:
                        field, _, value = line.partition(":")
                        value = value[1:] if value.startswith(" ") else value
                        if field == "event":
                            name = value
                        elif field == "id":
                            eid = value
                        elif field == "data":
                            data.append(value)
                if ended:
                    return
            except errors.Unavailable:
                if attempt >= self.retries:
                    raise
            except (ConnectionError, http.client.HTTPException, OSError) as e:
                if attempt >= self.retries:
                    raise errors.Unavailable("the event stream from %s broke off: %s" % (self.url, e)) from e
            if ended:
                return
            attempt += 1
            time.sleep(min(0.1 * 2 ** attempt, 5))

    @staticmethod
    def _retry_after(response, attempt):
        value = response.getheader("Retry-After")
        try:
            return min(float(value), 60.0)
        except (TypeError, ValueError):
            return min(0.2 * 2 ** attempt, 10.0)

    # ---- pools

    def put_pool(self, type, **spec):
        """Creates or updates the pool of ``type``: ``put_pool("train", command=["python3", "t.py"], min_idle=2)``."""
        return Pool(self, self.request("PUT", "/pools/" + urllib.parse.quote(type, safe=""), _api_names(spec),
                                       names=_caller_names(spec)))

    def pools(self):
        return [Pool(self, p) for p in self.request("GET", "/pools")]

    def pool(self, type):
        return Pool(self, self.request("GET", "/pools/" + urllib.parse.quote(type, safe="")))

    def delete_pool(self, type):
        """Drains the pool: queued jobs are cancelled, idle processors retired, busy ones after their job."""
        return Pool(self, self.request("DELETE", "/pools/" + urllib.parse.quote(type, safe="")))

    # ---- jobs

    def _job_body(self, type, config, args, env, opts):
        body = {"type": type}
        if config is not None:
            body["config"] = config
        if args is not None:
            body["args"] = list(args)
        if env is not None:
            body["env"] = dict(env)
        body.update(_api_names(opts))
        return body

    def submit(self, type, config=None, args=None, env=None, **opts):
        """Submits one job (``priority``, ``timeout_seconds`` or ``timeout``, ``max_attempts`` as keywords); a :class:`Job`.
        ``config`` may hold numpy values, dates and paths (sent as lists and numbers, ISO 8601, text)."""
        opts, names = _timeout_alias(opts)
        reply = self.request("POST", "/jobs", self._job_body(type, config, args, env, opts),
                             headers={"Idempotency-Key": uuid.uuid4().hex}, names=names)
        return Job(self, reply)

    def run(self, type, config=None, args=None, env=None, timeout=300, **opts):
        """Submits and waits in one request (``POST /jobs?wait=``); the ended :class:`Job` (or running, after ``timeout``)."""
        reply = self.request("POST", "/jobs?wait=%d" % max(0, int(timeout)), self._job_body(type, config, args, env, opts),
                             headers={"Idempotency-Key": uuid.uuid4().hex}, names=_caller_names(opts))
        return Job(self, reply)

    def map(self, type, configs, args=None, env=None, **opts):
        """One job per config, in one request (``POST /jobs/batch``, all or none, at most 1000); a list of :class:`Job`.
        ``timeout=`` is the jobs' ``timeout_seconds``."""
        opts, names = _timeout_alias(opts)
        jobs = [self._job_body(type, c, args, env, opts) for c in configs]
        out = []
        for i in range(0, len(jobs), 1000):
            reply = self.request("POST", "/jobs/batch", {"jobs": jobs[i:i + 1000]},
                                 headers={"Idempotency-Key": uuid.uuid4().hex}, names=names)
            out.extend(Job(self, j) for j in reply["jobs"])
        return out

    def job(self, id):
        return Job(self, self.request("GET", "/jobs/" + urllib.parse.quote(id, safe="")))

    def jobs(self, type=None, state=None, limit=50):
        q = urllib.parse.urlencode({k: v for k, v in {"type": type, "state": state, "limit": limit}.items() if v})
        return [Job(self, j) for j in self.request("GET", "/jobs?" + q)]

    # ---- sweeps

    def sweep(self, type, space, **opts):
        """Starts a sweep over ``space`` (``algorithm``, ``trials``, ``parallelism``, ``objective``, ... as keywords)."""
        opts, names = _timeout_alias(opts)
        body = {"type": type, "space": space}
        body.update(_api_names(opts))
        return Sweep(self, self.request("POST", "/sweeps", body, headers={"Idempotency-Key": uuid.uuid4().hex},
                                        names=names))

    def sweeps(self, type=None, limit=50):
        q = urllib.parse.urlencode({k: v for k, v in {"type": type, "limit": limit}.items() if v})
        return [Sweep(self, s) for s in self.request("GET", "/sweeps?" + q)]

    def get_sweep(self, id):
        return Sweep(self, self.request("GET", "/sweeps/" + urllib.parse.quote(id, safe="")))

    def cancel(self, id):
        """Cancels a sweep (its open trials with it) or a job by its id; the cancelled :class:`Sweep` or :class:`Job`.
        Raises :class:`~warmpool.errors.Conflict` when it had already ended, NotFound when there is no such id."""
        quoted = urllib.parse.quote(id, safe="")
        try:
            return Sweep(self, self.request("DELETE", "/sweeps/" + quoted))
        except errors.NotFound:
            return Job(self, self.request("DELETE", "/jobs/" + quoted))

    def close(self):
        """Closes every connection this client opened, on any thread (a later call opens a new one)."""
        self._waiters.shutdown(wait=False)
        with self._open_lock:
            conns, self._open = list(self._open), set()
        for c in conns:
            c.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "Client(%r)" % self.url
