"""Server-Sent Events (the ``text/event-stream`` the API streams a job's or a sweep's events in):
the lines of a stream parsed into :class:`Event` s, as the WHATWG HTML standard's event-stream
interpretation does, without the network (the transport feeds it lines)."""
from __future__ import annotations

import json
from typing import Any, Iterable, Iterator, List, Optional

from .values import numbers

__all__ = ["Event", "EventParser", "parse"]


class Event:
    """One Server-Sent Event: ``name`` (``state``, ``log``, ``report``, ``end``; ``sweep``, ``trial``),
    ``id`` (log lines and reports: what a reconnect resumes after) and ``data`` (a log line as text;
    the rest decoded from JSON; a report's "NaN", "Infinity", "-Infinity" as floats)."""
    __slots__ = ("name", "id", "data")

    def __init__(self, name: str, id: Optional[str], text: str) -> None:
        self.name = name
        self.id = id
        self.data: Any
        if name == "log":
            self.data = text
        else:
            try:
                self.data = json.loads(text)
            except ValueError:
                self.data = text
            if name == "report":
                self.data = numbers(self.data)  # "NaN", "Infinity" as the floats the job reported

    def __repr__(self) -> str:
        return "Event(%s, %r)" % (self.name, self.data if self.name == "log" else "...")


class EventParser:
    """Turns the lines of an event stream (without their line ends), one at a time, into events.

    ``feed(line)`` returns the event a blank line completes, else None. An event without ``data``
    is not dispatched; several ``data`` lines are joined by newlines; an event without ``event:``
    is a ``message``; comments (``:``) and unknown fields (``retry``) are skipped. ``Event.id`` is the
    event's own ``id:`` (None without one); ``last_id`` is the id of the last event returned, for ``Last-Event-ID``.
    """

    def __init__(self, last_id: Optional[str] = None) -> None:
        self.last_id = last_id
        self._name: Optional[str] = None
        self._id: Optional[str] = None
        self._data: List[str] = []

    def feed(self, line: str) -> Optional[Event]:
        if line == "":
            event = None
            if self._data:
                event = Event(self._name or "message", self._id, "\n".join(self._data))
                if self._id:  # only a delivered event is resumed after
                    self.last_id = self._id
            self._name, self._id, self._data = None, None, []
            return event
        if line.startswith(":"):
            return None
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "event":
            self._name = value
        elif field == "data":
            self._data.append(value)
        elif field == "id" and "\0" not in value:
            self._id = value
        return None


def parse(lines: Iterable[str], parser: Optional[EventParser] = None) -> Iterator[Event]:
    """The events in ``lines`` (text without line ends); an event the stream cut off before its blank line is dropped."""
    parser = parser or EventParser()
    for line in lines:
        event = parser.feed(line)
        if event is not None:
            yield event
