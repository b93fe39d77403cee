"""A test case with a fresh stub manager and a client of it."""
from __future__ import annotations

import unittest
from typing import Any

import warmpool

from .stub import StubManager


class StubTestCase(unittest.TestCase):
    stub: StubManager
    wp: warmpool.Client

    def setUp(self) -> None:
        self.stub = StubManager()
        self.addCleanup(self.stub.close)
        self.wp = self.client()

    def client(self, **options: Any) -> warmpool.Client:
        options.setdefault("token", "wp_test")
        wp = warmpool.Client(self.stub.url, **options)
        self.addCleanup(wp.close)
        return wp
