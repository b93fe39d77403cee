"""The client's unit tests: no warmpool needed, an in-process stub answers as the manager does
(tests/unit/stub.py). ``cd clients/python && python3 -m unittest`` runs them."""
import os
import sys

CLIENT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
if CLIENT not in sys.path:  # the package under test, wherever the tests are run from
    sys.path.insert(0, CLIENT)
