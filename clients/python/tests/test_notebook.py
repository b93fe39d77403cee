"""The example notebook, executed as written in a real Jupyter kernel (Debian's python3-nbclient
and python3-ipykernel) against the running warmpool: every cell runs without an error and the
cells show what the text says they show."""
import os
import sys
import unittest

try:
    import nbclient
    import nbformat
except ImportError:
    nbclient = None

EXAMPLES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "examples"))


def _text(cell):
    out = []
    for o in cell.get("outputs", []):
        out.append(o.get("text", ""))
        for kind in ("text/plain", "text/html"):
            out.append((o.get("data") or {}).get(kind, ""))
    return "".join(out)


@unittest.skipIf(nbclient is None, "python3-nbclient is not installed")
class NotebookTests(unittest.TestCase):
    def test_the_quickstart_notebook_runs_as_written(self):
        nb = nbformat.read(os.path.join(EXAMPLES, "quickstart.ipynb"), as_version=4)
        env_path = os.path.dirname(EXAMPLES)
        os.environ["PYTHONPATH"] = env_path + os.pathsep + os.environ.get("PYTHONPATH", "")
        os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # ipykernel's debugger, on a frozen-modules Python
        nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                resources={"metadata": {"path": EXAMPLES}}).execute()
        code = [c for c in nb.cells if c.cell_type == "code"]
        self.assertFalse([o for c in code for o in c.get("outputs", []) if o.get("output_type") == "error"])
        self.assertIn("accuracy", _text(code[1]), "the job's metrics")
        self.assertIn("fold 2: accuracy", _text(code[2]), "its log")
        self.assertIn("SUCCEEDED", _text(code[2]), "the job's rich display")
        self.assertIn("'value'", _text(code[3]), "the sweep's best trial")
        self.assertIn("best accuracy 0.9", _text(code[5]), "the Optuna study's best")
        if os.environ.get("WARMPOOL_NOTEBOOK_OUT"):
            nbformat.write(nb, os.environ["WARMPOOL_NOTEBOOK_OUT"])


if __name__ == "__main__":
    sys.exit(unittest.main())
