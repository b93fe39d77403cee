"""A stand-in for the manager, in this process: an http.server on a free loopback port, in a thread,
answering each request as a route says (JSON, problem+json, an event stream, or a reset connection)
and recording what the client sent."""
from __future__ import annotations

import dataclasses
import http.server
import json
import socket
import struct
import threading
import urllib.parse
from typing import Any, Callable, Dict, List, Optional, Tuple, Union


@dataclasses.dataclass
class Request:
    method: str
    path: str  # with its query
    headers: Dict[str, str]
    body: Any  # decoded JSON, or None

    @property
    def route(self) -> str:
        return urllib.parse.urlsplit(self.path).path

    @property
    def query(self) -> Dict[str, str]:
        return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query))


@dataclasses.dataclass
class Reply:
    status: int = 200
    body: Any = None
    headers: Dict[str, str] = dataclasses.field(default_factory=dict)
    events: Optional[str] = None  # an event stream's text, sent and then the connection closed
    reset: bool = False  # no answer: the connection is reset


def ok(body: Any, status: int = 200, **headers: str) -> Reply:
    return Reply(status, body, dict(headers))


def problem(status: int, detail: str, type: str = "about:blank", field: Optional[str] = None, **headers: str) -> Reply:
    """An error as the manager gives it: application/problem+json (RFC 9457)."""
    body = {"type": type, "title": http.HTTPStatus(status).phrase, "status": status, "detail": detail}
    if field:
        body["field"] = field
    return Reply(status, body, dict(headers))


def events(text: str) -> Reply:
    return Reply(200, events=text)


RESET = Reply(reset=True)

Answer = Union[Reply, Callable[[Request], Reply]]


class StubManager:
    """``stub.route("POST", "/jobs", ok({...}))``: each request to that method and path (without its query) is
    answered by the next of the answers given (the last one repeats); an answer is a :class:`Reply` or a
    function of the :class:`Request`. An unrouted request gets ``default``, else a 404 problem. ``requests`` is
    what came."""

    def __init__(self) -> None:
        self.requests: List[Request] = []
        self.connections = 0  # TCP connections accepted
        self.default: Optional[Answer] = None
        self._routes: Dict[Tuple[str, str], List[Answer]] = {}
        self._lock = threading.Lock()
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                with stub._lock:
                    stub.connections += 1

            def handle_one(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n else b""
                req = Request(self.command, self.path, {k: v for k, v in self.headers.items()},
                              json.loads(raw) if raw else None)
                with stub._lock:
                    stub.requests.append(req)
                stub._answer(req).send(self)

            do_GET = do_POST = do_PUT = do_DELETE = handle_one

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()
        self.url = "http://127.0.0.1:%d" % self.server.server_port

    def route(self, method: str, path: str, *answers: Answer) -> None:
        with self._lock:
            self._routes[(method, path)] = list(answers)

    def _answer(self, req: Request) -> "_Sender":
        with self._lock:
            answers = self._routes.get((req.method, req.route))
            answer: Answer = self.default or problem(404, "no route %s %s in the stub" % (req.method, req.route))
            if answers:
                answer = answers.pop(0) if len(answers) > 1 else answers[0]
        return _Sender(answer(req) if callable(answer) else answer)

    def seen(self, method: str, path: str) -> List[Request]:
        """The requests that came to ``method path`` (its query aside), in order."""
        with self._lock:
            return [r for r in self.requests if r.method == method and r.route == path]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class _Sender:
    def __init__(self, reply: Reply) -> None:
        self.reply = reply

    def send(self, h: http.server.BaseHTTPRequestHandler) -> None:
        r = self.reply
        if r.reset:
            # SO_LINGER 0: close() sends a TCP reset, as a crashed or restarting server's socket does
            h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            h.close_connection = True
            h.connection.close()
            return
        if r.events is not None:
            h.send_response(r.status)
            h.send_header("Content-Type", "text/event-stream")
            h.send_header("Connection", "close")
            h.end_headers()
            h.wfile.write(r.events.encode())
            h.wfile.flush()
            h.close_connection = True
            return
        data = json.dumps(r.body).encode() if r.body is not None else b""
        h.send_response(r.status)
        h.send_header("Content-Type", "application/json" if r.status < 400 else "application/problem+json")
        h.send_header("Content-Length", str(len(data)))
        for k, v in r.headers.items():
            h.send_header(k.replace("_", "-"), v)
        h.end_headers()
        h.wfile.write(data)
