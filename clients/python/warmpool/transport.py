"""The HTTP under the client: a kept-alive connection per thread, retries (503 and 429 after
``Retry-After``, but not a 503 that says the job's pool cannot start processors, a lost connection after a backoff), problem+json answers as typed errors, streamed
answers line by line, and event streams that reconnect where they broke off. No API verbs here:
those are :class:`warmpool.Client`'s."""
from __future__ import annotations

import http.client
import json
import os
import socket
import threading
import time
import urllib.parse
from typing import Any, Collection, Dict, Iterator, Mapping, Optional, Set

from . import errors
from .sse import Event, EventParser
from .values import jsonable

__all__ = ["Transport", "DEFAULT_URL", "find_token"]

DEFAULT_URL = "http://127.0.0.1:8080"
WAIT_HEADROOM = 330.0
"""Seconds a socket waits beyond ``timeout`` for an answer: a ``?wait=`` holds a request up to 300 s."""

Connection = http.client.HTTPConnection  # or its HTTPSConnection
# what a lost or broken connection raises (ConnectionError, e.g. a reset, is an OSError)
NETWORK_ERRORS = (http.client.HTTPException, OSError)


def find_token(start: str) -> Optional[str]:
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


def backoff(attempt: int) -> float:
    """Seconds before the ``attempt``-th try after a lost connection: 0.2, 0.4, 0.8 ... at most 5."""
    return float(min(0.1 * 2 ** attempt, 5))


def retry_after(response: http.client.HTTPResponse, attempt: int) -> float:
    """Seconds before trying a 503 or 429 again: its ``Retry-After`` (at most 60), else 0.4, 0.8 ... at most 10."""
    value = response.getheader("Retry-After")
    if value is not None:
        try:
            return min(float(value), 60.0)
        except ValueError:
            pass  # an HTTP date, or nonsense: the backoff
    return float(min(0.2 * 2 ** attempt, 10.0))


class UnixConnection(http.client.HTTPConnection):
    """HTTP over a Unix socket at ``path`` (``http+unix://`` URLs)."""

    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.socket_path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self.socket_path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None


class Transport:
    """A warmpool server's HTTP: ``url`` (default ``WARMPOOL_URL``, else http://127.0.0.1:8080) and the
    bearer ``token`` (default ``WARMPOOL_TOKEN``, else the run command's ``.warmpool/token``).

    Connections are kept alive (one per thread). A call answered 503 or 429 is tried again,
    honouring ``Retry-After``, up to ``retries`` times; so is one whose connection was lost.
    """

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, retries: int = 5,
                 timeout: float = 60.0) -> None:
        self.url = (url or os.environ.get("WARMPOOL_URL") or DEFAULT_URL).rstrip("/")
        self.token = token or os.environ.get("WARMPOOL_TOKEN") or find_token(os.getcwd())
        self.retries = retries
        self.timeout = timeout
        parts = urllib.parse.urlsplit(self.url)
        if parts.scheme == "http+unix" and parts.netloc:
            # a socket's path, percent-encoded as the host (a sweep's driver reaches the API so, see docs/sweeps.md)
            self._scheme, self._host, self._port = parts.scheme, urllib.parse.unquote(parts.netloc), None
        elif parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("WARMPOOL_URL must look like http://host:port, not %r" % self.url)
        else:
            self._scheme, self._host, self._port = parts.scheme, parts.hostname, parts.port
        self._base_path = parts.path.rstrip("/")
        self._local = threading.local()
        self._open: Set[Connection] = set()  # every thread's connection, for close()
        self._open_lock = threading.Lock()

    def _new_connection(self) -> Connection:
        if self._scheme == "http+unix":
            return UnixConnection(self._host, timeout=self.timeout + WAIT_HEADROOM)
        if self._scheme == "https":
            return http.client.HTTPSConnection(self._host, self._port, timeout=self.timeout + WAIT_HEADROOM)
        return http.client.HTTPConnection(self._host, self._port, timeout=self.timeout + WAIT_HEADROOM)

    def _connection(self, fresh: bool = False) -> Connection:
        c: Optional[Connection] = getattr(self._local, "conn", None)
        if c is None or fresh:
            if c is not None:
                self._drop(c)
            c = self._new_connection()
            self._local.conn = c
            with self._open_lock:
                self._open.add(c)
        return c

    def _drop(self, c: Connection) -> None:
        c.close()
        with self._open_lock:
            self._open.discard(c)

    def _headers(self, accept: str, extra: Optional[Mapping[str, str]]) -> Dict[str, str]:
        h = {"Accept": accept}
        if self.token:
            h["Authorization"] = "Bearer " + self.token
        h.update(extra or {})
        return h

    def request(self, method: str, path: str, body: Any = None, headers: Optional[Mapping[str, str]] = None,
                ok: Collection[int] = (200, 201, 202), names: Optional[Mapping[str, str]] = None) -> Any:
        """One API call; the decoded JSON reply. Raises a :class:`~warmpool.errors.WarmpoolError` for a refusal,
        naming a field as the caller wrote it (``names``: the API's name -> the caller's, e.g. minIdle -> min_idle)."""
        h = self._headers("application/json", None)
        data = None
        if body is not None:
            data = json.dumps(jsonable(body), allow_nan=False).encode()
            h["Content-Type"] = "application/json"
        h.update(headers or {})
        attempt = 0
        while True:
            try:
                conn = self._connection(fresh=attempt > 0)
                conn.request(method, self._base_path + path, body=data, headers=h)
                r = conn.getresponse()
                raw = r.read()
            except NETWORK_ERRORS as e:
                if attempt >= self.retries:
                    raise errors.Unavailable("warmpool at %s cannot be reached: %s" % (self.url, e)) from e
                attempt += 1
                time.sleep(backoff(attempt))
                continue
            reply = _decode(raw)
            if r.status in (429, 503) and attempt < self.retries and not errors.cannot_start(r.status, reply):
                attempt += 1
                time.sleep(retry_after(r, attempt))
                continue
            if r.status in ok:
                return reply
            raise errors.from_problem(r.status, reply, names)

    def stream(self, path: str, headers: Optional[Mapping[str, str]] = None) -> Iterator[str]:
        """The lines of a streamed answer (text, or Server-Sent Events) as they come, without their line ends,
        on a connection of its own; raises a :class:`~warmpool.errors.WarmpoolError` for a refusal."""
        h = self._headers("*/*", headers)
        conn = self._new_connection()
        try:
            try:
                conn.request("GET", self._base_path + path, headers=h)
                r = conn.getresponse()
            except NETWORK_ERRORS as e:
                raise errors.Unavailable("warmpool at %s cannot be reached: %s" % (self.url, e)) from e
            if r.status != 200:
                raise errors.from_problem(r.status, _decode(r.read()))
            while True:
                line = r.readline()
                if not line:
                    return
                yield line.decode("utf-8", "replace").rstrip("\r\n")
        finally:
            conn.close()

    def events(self, path: str, last_event_id: Optional[str] = None) -> Iterator[Event]:
        """Server-Sent Events from ``path`` as :class:`~warmpool.sse.Event` s (``name``, ``id``, ``data``: a log
        line as text, the rest decoded from JSON) until the server ends the stream after its ``end``
        event; a connection lost before it is made again, resuming after the last event's id."""
        parser = EventParser(last_event_id)
        attempt = 0
        while True:
            ended = False
            try:
                headers = {"Accept": "text/event-stream"}
                if parser.last_id:
                    headers["Last-Event-ID"] = parser.last_id
                parser = EventParser(parser.last_id)  # what a broken stream left half-read is dropped
                for line in self.stream(path, headers):
                    event = parser.feed(line)
                    if event is not None:
                        ended = event.name == "end"
                        attempt = 0
                        yield event
                if ended:
                    return
            except errors.Unavailable:
                if attempt >= self.retries:
                    raise
            except NETWORK_ERRORS as e:
                if attempt >= self.retries:
                    raise errors.Unavailable("the event stream from %s broke off: %s" % (self.url, e)) from e
            if ended:
                return
            attempt += 1
            time.sleep(backoff(attempt))

    def close(self) -> None:
        """Closes every connection this transport opened, on any thread (a later call opens a new one)."""
        with self._open_lock:
            conns, self._open = list(self._open), set()
        for c in conns:
            c.close()
