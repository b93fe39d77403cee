"""The Python client's tests. ``python3 -m unittest`` from clients/python runs the unit tests alone
(tests/unit: an in-process stub server stands for the manager); the end-to-end suite here
(test_client, test_optuna, test_readme, test_notebook) needs a running warmpool (WARMPOOL_URL,
WARMPOOL_TOKEN) and runs with ``python3 -m unittest discover -s tests``, as PythonClientIT does
against the packaged app (that discovery starts inside this directory, so this hook is not used)."""
import os
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def load_tests(loader: unittest.TestLoader, standard_tests: unittest.TestSuite, pattern: str) -> unittest.TestSuite:
    return loader.discover(os.path.join(HERE, "unit"), pattern=pattern or "test*.py", top_level_dir=os.path.dirname(HERE))
