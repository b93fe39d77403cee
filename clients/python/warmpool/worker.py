"""Run a Python training function as warmpool jobs: ``def train(config) -> dict``.

Standard library only, and importing it loads nothing of the client. With ``clients/python`` on
PYTHONPATH (or the package installed), end the script with ``serve(train)``:

    from warmpool import worker       # or, as before: import warmpool_worker as worker
    import torch                      # slow imports and data loading happen once per worker

    def train(config):
        for step in range(10):
            loss = ...
            worker.report(step, loss=loss)   # optional: the median rule may stop the trial
        return {"loss": loss}

    worker.serve(train)

The same script works in both kinds of pool:

* ``"worker": "persistent"``: the agent starts the script once per processor
  (``WARMPOOL_WORKER=persistent``) and sends every job as one JSON line on stdin,
  ``{"id", "config", "args", "env"}``; ``serve`` answers each with one line,
  ``{"status": "SUCCEEDED", "metrics": {...}}`` or ``{"status": "FAILED", "error": "..."}``,
  and writes ``{"report": {...}}`` lines for ``report``. Anything the function prints goes to
  stderr, which is the job's log, so it cannot be mistaken for an answer.
* a process per job (the default): ``serve`` runs the function once on ``WARMPOOL_CONFIG`` (or,
  for a config of 64 KiB or more, the file ``WARMPOOL_CONFIG_FILE`` names) and writes its dict to
  ``WARMPOOL_RESULT``; ``report`` prints ``WARMPOOL_REPORT {...}`` lines.

Either way the function's process sees its config the same way as a process per job does:
``WARMPOOL_CONFIG``, or ``WARMPOOL_CONFIG_FILE`` for a large one (so that a subprocess it starts
is not refused for an environment over the system's limit).
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import traceback
from typing import IO, Any, Callable, Dict, NoReturn, Optional

__all__ = ["serve", "report", "config", "Train"]

Train = Callable[[Dict[str, Any]], Optional[Dict[str, Any]]]
"""A training function: the job's config in, its metrics out (None for none)."""

_answers: Optional[IO[str]] = None  # the worker's real stdout while it serves as a persistent worker
CONFIG_IN_ENV_MAX = 64 * 1024  # as the agent: a larger config goes in a file, WARMPOOL_CONFIG_FILE


def report(step: int, **metrics: Any) -> None:
    """Reports intermediate metrics at ``step`` (a whole number), e.g. ``report(3, loss=0.41)``."""
    line = dict(metrics)
    line["step"] = int(step)
    if _answers is not None:
        _answers.write(json.dumps({"report": line}) + "\n")
        _answers.flush()
    else:
        sys.stdout.write("WARMPOOL_REPORT " + json.dumps(line) + "\n")
        sys.stdout.flush()


def serve(train: Train) -> None:
    """Runs ``train(config) -> dict`` for this process's job, or for every job sent to this worker."""
    if os.environ.get("WARMPOOL_WORKER") == "persistent":
        _serve_forever(train)
    else:
        sys.exit(_run_once(train))


def _call(train: Train, config: Dict[str, Any]) -> Dict[str, Any]:
    metrics = train(config)
    if metrics is None:
        return {}
    if not isinstance(metrics, dict):
        raise TypeError("train(config) must return a dict of metrics, not %s" % type(metrics).__name__)
    json.dumps(metrics)  # refuse what JSON cannot carry here, not in the agent
    return metrics


def config() -> Dict[str, Any]:
    """This job's config: ``WARMPOOL_CONFIG_FILE``'s content for a large one, else ``WARMPOOL_CONFIG``."""
    path = os.environ.get("WARMPOOL_CONFIG_FILE")
    if path:
        with open(path) as f:
            loaded: Dict[str, Any] = json.load(f)
            return loaded
    parsed: Dict[str, Any] = json.loads(os.environ.get("WARMPOOL_CONFIG") or "{}")
    return parsed


def _run_once(train: Train) -> int:
    try:
        metrics = _call(train, config())
    except Exception:
        traceback.print_exc()
        return 1
    result = os.environ.get("WARMPOOL_RESULT")
    if result:
        with open(result, "w") as f:
            json.dump(metrics, f)
    return 0


def _serve_forever(train: Train) -> None:
    global _answers
    answers = _answers = sys.stdout
    sys.stdout = sys.stderr  # the function's prints are log lines, never protocol lines
    base_env = dict(os.environ)
    for line in sys.stdin:  # ends when the agent goes away: the worker goes with it
        line = line.strip()
        if not line:
            continue
        config_file = None
        try:
            job = json.loads(line)
            os.environ.clear()
            os.environ.update(base_env)
            os.environ.update(job.get("env") or {})
            os.environ["WARMPOOL_JOB_ID"] = job.get("id", "")
            text = json.dumps(job.get("config") or {})
            if len(text.encode()) < CONFIG_IN_ENV_MAX:
                os.environ["WARMPOOL_CONFIG"] = text
            else:
                fd, config_file = tempfile.mkstemp(prefix="warmpool-config-", suffix=".json")  # mode 0600
                with os.fdopen(fd, "w") as f:
                    f.write(text)
                os.environ["WARMPOOL_CONFIG_FILE"] = config_file
            answer: Dict[str, Any] = {"status": "SUCCEEDED", "metrics": _call(train, job.get("config") or {})}
        except Exception as e:
            traceback.print_exc()
            answer = {"status": "FAILED", "error": "%s: %s" % (type(e).__name__, e)}
        finally:
            if config_file:
                os.remove(config_file)
        sys.stderr.flush()
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


def _not_a_program() -> NoReturn:
    sys.stderr.write("warmpool_worker is a library: call warmpool_worker.serve(train) from your script\n")
    sys.exit(2)


if __name__ == "__main__":
    _not_a_program()
