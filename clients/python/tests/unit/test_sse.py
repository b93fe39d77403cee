"""The event-stream parser on its own, and Transport.events against the stub: a stream that breaks
off is opened again after the last event's id, and an ``end`` event ends it."""
import math
import threading

import warmpool
from warmpool.sse import Event, EventParser, parse

from .base import StubTestCase
from .stub import RESET, events, ok, problem


def lines(text):
    return text.split("\n")


class ParserTests(StubTestCase):
    def test_fields_make_an_event_that_a_blank_line_ends(self):
        got = list(parse(lines('event: state\nid: 7\ndata: {"state": "RUNNING"}\n\n')))
        self.assertEqual(1, len(got))
        self.assertEqual(("state", "7", {"state": "RUNNING"}), (got[0].name, got[0].id, got[0].data))

    def test_data_lines_are_joined_by_newlines_and_a_log_line_stays_text(self):
        [ev] = parse(lines("event: log\ndata: epoch 1\ndata:  indented\n\n"))
        self.assertEqual("epoch 1\n indented", ev.data, "one space after the colon is dropped, no more")

    def test_comments_unknown_fields_and_events_without_data_are_skipped(self):
        got = list(parse(lines(": keep-alive\nretry: 100\n\nevent: state\n\nevent: log\ndata: x\n\n")))
        self.assertEqual(["log"], [e.name for e in got])

    def test_an_event_without_a_name_is_a_message_and_one_without_an_id_has_none(self):
        [ev] = parse(lines("data: 3\n\n"))
        self.assertEqual(("message", None, 3), (ev.name, ev.id, ev.data))

    def test_an_event_cut_off_before_its_blank_line_is_not_delivered(self):
        parser = EventParser()
        self.assertEqual([], list(parse(lines("id: 9\nevent: log\ndata: half"), parser)))
        self.assertIsNone(parser.last_id, "a reconnect resumes after the last event delivered, not a half one")

    def test_last_id_follows_the_delivered_events(self):
        parser = EventParser("1-0")
        list(parse(lines("id: 2-0\nevent: log\ndata: a\n\nevent: state\ndata: {}\n\n"), parser))
        self.assertEqual("2-0", parser.last_id, "an event without an id keeps the last one")

    def test_a_report_s_non_finite_values_are_floats_and_bad_json_stays_text(self):
        self.assertTrue(math.isnan(Event("report", "1-0", '{"step": 1, "loss": "NaN"}').data["loss"]))
        self.assertEqual("{not json", Event("state", None, "{not json").data)


class StreamTests(StubTestCase):
    def test_events_come_until_the_end_event(self):
        self.stub.route("GET", "/jobs/t.1/events", events(
            'event: state\ndata: {"id": "t.1", "state": "RUNNING"}\n\n'
            "id: 1-0\nevent: log\ndata: epoch 1\n\n"
            'id: 1-1\nevent: report\ndata: {"step": 1, "loss": "Infinity"}\n\n'
            'event: end\ndata: {"id": "t.1", "state": "SUCCEEDED", "result": {"metrics": {"loss": 1}}}\n\n'))
        got = list(self.wp.events("/jobs/t.1/events"))
        self.assertEqual(["state", "log", "report", "end"], [e.name for e in got])
        self.assertEqual(math.inf, got[2].data["loss"])
        self.assertEqual("text/event-stream", self.stub.requests[0].headers["Accept"])
        self.assertEqual(1, len(self.stub.requests))

    def test_a_stream_that_breaks_off_resumes_after_the_last_event_s_id(self):
        self.stub.route("GET", "/jobs/t.1/events",
                        events("id: 1-0\nevent: log\ndata: epoch 1\n\nid: 1-1\nevent: log\ndata: ep"),
                        RESET,
                        events("id: 1-1\nevent: log\ndata: epoch 2\n\nevent: end\ndata: {}\n\n"))
        got = list(self.wp.events("/jobs/t.1/events"))
        self.assertEqual(["epoch 1", "epoch 2", {}], [e.data for e in got])
        resumed = [r.headers.get("Last-Event-ID") for r in self.stub.requests]
        self.assertEqual([None, "1-0", "1-0"], resumed)

    def test_a_refused_stream_is_a_typed_error_at_once(self):
        self.stub.route("GET", "/jobs/nope/events", problem(404, "There is no job nope"))
        with self.assertRaises(warmpool.NotFound):
            list(self.wp.events("/jobs/nope/events"))
        self.assertEqual(1, len(self.stub.requests))

    def test_a_job_s_events_settle_its_future(self):
        self.stub.route("GET", "/jobs/t.1/events", events(
            'event: end\ndata: {"id": "t.1", "state": "FAILED", "ended": true, "error": "exit 3"}\n\n'))
        held = threading.Event()  # the job's waiter holds its ?wait= until the test ends, as the server would
        self.addCleanup(held.set)
        self.stub.route("GET", "/jobs/t.1", lambda req: ok({"id": "t.1", "state": "FAILED", "ended": held.wait(5)}))
        job = warmpool.Job(self.wp, {"id": "t.1", "state": "FAILED", "ended": False})
        self.assertFalse(job.done())
        self.assertEqual(["end"], [e.name for e in job.events()])
        with self.assertRaises(warmpool.JobFailed) as e:
            job.result(timeout=0)
        self.assertEqual("exit 3", e.exception.error)

    def test_logs_are_the_lines_of_a_streamed_answer(self):
        self.stub.route("GET", "/jobs/t.1/logs", events("epoch 1\r\nepoch 2\n"))
        job = warmpool.Job(self.wp, {"id": "t.1", "state": "SUCCEEDED"})
        self.assertEqual(["epoch 1", "epoch 2"], list(job.logs(follow=True)))
        self.assertEqual("follow=true", self.stub.requests[0].path.split("?")[1])
