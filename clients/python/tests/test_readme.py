"""The README's "From a notebook" examples, run as written (from the repository's root, as a
user would paste them) against the running warmpool, in one namespace and in order; then
what they printed and left behind is checked."""
import contextlib
import io
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

try:
    import optuna
except ImportError:
    optuna = None

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def python_blocks(section):
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    start = text.index("## " + section + "\n")
    end = text.index("\n## ", start + 1)
    return re.findall(r"```python\n(.*?)```", text[start:end], re.S)


class ReadmeTests(unittest.TestCase):
    def test_the_notebook_section_runs_as_written(self):
        blocks = python_blocks("From a notebook")
        self.assertEqual(2, len(blocks), "the client example and the Optuna one")
        if optuna is None:
            blocks = blocks[:1] + ['wp.delete_pool("bowl")\n']
        here = os.getcwd()
        os.chdir(ROOT)
        out = io.StringIO()
        scope = {"__name__": "readme"}
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                for block in blocks:
                    exec(compile(block, "README.md", "exec"), scope)
        finally:
            os.chdir(here)
            scope["wp"].close()
        printed = out.getvalue()
        self.assertIn("trained x=1.500 y=-0.500", printed, "the job's live log")
        self.assertEqual("SUCCEEDED", scope["job"].state)
        self.assertAlmostEqual(0.5, scope["job"].result()["loss"], delta=0.4)
        self.assertEqual(4, len([j for j in scope["jobs"] if j.state == "SUCCEEDED"]))
        self.assertEqual("SUCCEEDED", scope["sweep"].state)
        self.assertEqual(16, scope["sweep"].progress["done"])
        if optuna is not None:
            self.assertEqual(40, len(scope["study"].trials))
            self.assertLess(scope["study"].best_value, 3.0)


if __name__ == "__main__":
    unittest.main()
