"""Optuna on warm processors: an ask-and-tell loop whose trials are warmpool jobs.

    import optuna, warmpool
    from warmpool.optuna import optimize
    study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=1),
                                pruner=optuna.pruners.MedianPruner(n_warmup_steps=2))
    optimize(study, warmpool.Client(), "train", {"lr": optuna.distributions.FloatDistribution(1e-4, 1e-1, log=True)},
             objective="loss", n_trials=40, parallelism=4)
    print(study.best_params)

Each trial's parameters are its job's ``config``; the job's reports (``WARMPOOL_REPORT`` lines,
``warmpool.worker.report``) go to ``trial.report()`` as they come, and a trial the study's pruner
prunes is ended on the server as EARLY_STOPPED. The metric named ``objective`` in the job's
result is the value told to the study. Any sampler and pruner works: Optuna decides, warmpool runs.
"""
from __future__ import annotations

import concurrent.futures
import json
import math
import queue
import time
import urllib.parse
import warnings
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Mapping, Optional, Set, Tuple, Union

from . import errors
from .objects import Job, Sweep
from .progress import Bar
from .values import numbers

if TYPE_CHECKING:
    import optuna

    from .client import Client

__all__ = ["optimize", "journal", "Journal"]

# As the native sweep does (lib/ends.lua's watch_objective): when the first WARN_AFTER trials that succeeded
# (or all of them, when fewer are asked) all lack a finite objective, say so once, since a mistyped metric
# name would otherwise fail every trial with the reason only in its user_attrs.
WARN_AFTER = 3

# what a trial's follower tells the loop: ("report", job id, a report), ("end", job id, the ended job)
# or ("lost", job id, the exception)
Message = Tuple[str, str, Any]


def _follow(job: Job, inbox: queue.Queue[Message]) -> None:
    try:
        for ev in job.events():
            if ev.name == "report" and isinstance(ev.data, dict):
                inbox.put(("report", job.id, ev.data))
            elif ev.name == "end":
                inbox.put(("end", job.id, ev.data))
                return
        inbox.put(("end", job.id, job.refresh().data))
    except Exception as e:  # the server went away: the trial fails, the loop goes on
        inbox.put(("lost", job.id, e))


def optimize(study: optuna.Study, client: Client, type: str, space: Mapping[str, optuna.distributions.BaseDistribution],
             objective: str, n_trials: int, parallelism: int = 4, config: Optional[Mapping[str, Any]] = None,
             args: Optional[Iterable[str]] = None, timeout: Optional[float] = None, progress: bool = False,
             sweep: Union[bool, Sweep] = True, **job_options: Any) -> optuna.Study:
    """Runs ``n_trials`` trials of ``study`` as jobs of the pool ``type``, ``parallelism`` at once.

    ``space`` maps parameter names to Optuna distributions; ``objective`` names the metric the
    study's direction optimizes. ``config`` is merged under each trial's parameters; ``args`` and
    other keywords (``timeout_seconds``, ``priority``...) go to every job. After ``timeout``
    seconds, trials still running are cancelled and told failed. ``progress=True`` shows a live
    bar of the trials told and the best value, as ``Sweep.wait(progress=True)`` does. With ``sweep=True``
    (the default) the trials are those of an external sweep (``algorithm="external"``) made for the study:
    the dashboard, ``GET /sweeps`` and Prometheus show its progress, best trial and cost like any sweep's, and
    its id is ``study.user_attrs["warmpool_sweep"]``; a study cut short (``timeout``, an exception, Ctrl-C)
    cancels the sweep and with it every trial still out. ``sweep=False`` submits plain jobs.

    ``sweep=<an external Sweep>`` runs the study on that sweep and picks up where a driver before left
    it: keep the study in the sweep's journal (``storage=warmpool.optuna.journal(sweep)``), and a driver
    that died (a killed process, a closed notebook) is replaced by running the same lines again. Trials of
    the sweep already told count toward ``n_trials``; those still running are adopted (followed, told
    when they end, none started twice: each trial is added under its number as its key); a trial asked
    but never added is added now, one asked but not fully sampled is told failed (it never ran). An
    exception then leaves the sweep running, for the next driver; ``timeout`` still cancels it. When the first
    trials that succeeded (three, or all when fewer) all lack a finite ``objective``, it warns once
    (:class:`~warmpool.errors.SweepWarning`, naming the metrics they did report), as a sweep does;
    those trials are told failed, with the reason in ``trial.user_attrs["warmpool_error"]``. Returns the study.
    """
    import optuna  # only here: the client itself needs nothing beyond the standard library

    if len(study.directions) != 1:
        raise ValueError("warmpool.optuna.optimize takes a single-objective study")
    if n_trials < 1 or parallelism < 1:
        raise ValueError("n_trials and parallelism must be at least 1")
    inbox: queue.Queue[Message] = queue.Queue()
    running: Dict[str, Tuple[Any, Job]] = {}  # job id -> (trial, job)
    pruned: Set[str] = set()
    steps: Dict[str, Set[int]] = {}  # an adopted trial's job id -> the steps its study has already
    asked = told = 0
    watch = _ObjectiveWatch(study, objective, min(WARN_AFTER, n_trials))
    deadline = None if timeout is None else time.monotonic() + timeout
    run: Optional[Sweep] = None
    resumed = isinstance(sweep, Sweep)
    if isinstance(sweep, Sweep):
        run = sweep
    elif sweep:
        goal = "maximize" if study.direction == optuna.study.StudyDirection.MAXIMIZE else "minimize"
        run = client.sweep(type, None, algorithm="external", trials=n_trials, parallelism=parallelism,
                           objective={"metric": objective, "goal": goal},
                           **({} if args is None else {"args": list(args)}), **job_options)
    if run is not None:
        study.set_user_attr("warmpool_sweep", run.id)

    def add(trial: Any, params: Mapping[str, Any]) -> Job:
        cfg = dict(config or {})
        cfg.update(params)
        if run is None:
            return client.submit(type, config=cfg, args=args, **job_options)
        job = run.add_trial(cfg, key=str(trial.number))
        trial.set_user_attr("warmpool_job", job.id)
        return job

    followers = concurrent.futures.ThreadPoolExecutor(max_workers=parallelism, thread_name_prefix="warmpool-optuna")
    if run is not None and resumed:
        for trial, job, ended, told_steps in _adopt(study, run, space, add):
            asked += 1
            if ended:
                told += 1
            else:
                running[job.id] = (trial, job)
                # its events start from the job's first: the steps the driver before told are not told again
                steps[job.id] = told_steps
                followers.submit(_follow, job, inbox)
    bar = Bar(n_trials) if progress else None
    try:
        while told < n_trials:
            while asked < n_trials and len(running) < parallelism and (deadline is None or time.monotonic() < deadline):
                trial = study.ask(dict(space))
                if run is not None:
                    trial.set_user_attr("warmpool_sweep", run.id)  # first: a driver after this one knows it is ours
                job = add(trial, trial.params)
                if run is None:
                    trial.set_user_attr("warmpool_job", job.id)
                running[job.id] = (trial, job)
                asked += 1
                followers.submit(_follow, job, inbox)
            if not running:
                break  # the deadline passed before the rest were asked
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                if run is not None:
                    _end(run)  # every trial still out with it
                for trial, job in list(running.values()):
                    if run is None:
                        job.cancel()
                    study.tell(trial, state=optuna.trial.TrialState.FAIL)
                    told += 1
                running.clear()
                break
            try:
                kind, jid, data = inbox.get(timeout=left)
            except queue.Empty:
                continue
            if jid not in running:
                continue
            trial, job = running[jid]
            if kind == "report":
                step, value = data.get("step"), data.get(objective)
                if isinstance(step, int) and isinstance(value, (int, float)) and step not in steps.get(jid, ()):
                    trial.report(float(value), step)
                    if jid not in pruned and trial.should_prune():
                        pruned.add(jid)
                        _prune(client, job, step)
                continue
            del running[jid]
            told += 1
            state = data.get("state") if isinstance(data, dict) else None
            # "NaN", "Infinity" as floats: Optuna records a NaN objective as a failed trial, with its own warning
            metrics = numbers((data.get("result") or {}).get("metrics") or {}) if isinstance(data, dict) else {}
            value = metrics.get(objective)
            if state == "SUCCEEDED":
                watch.succeeded(metrics)
            if state == "SUCCEEDED" and isinstance(value, (int, float)):
                study.tell(trial, float(value))
            elif state == "EARLY_STOPPED":
                study.tell(trial, state=optuna.trial.TrialState.PRUNED)
            else:
                trial.set_user_attr("warmpool_error", (data.get("error") if isinstance(data, dict) else str(data))
                                    or "the job's metrics have no '%s'" % objective)
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
            if bar is not None:
                bar.update(told, _best(study))
    finally:
        followers.shutdown(wait=False)
        if bar is not None:
            bar.close()
        if run is not None and told < n_trials and (not resumed or (deadline is not None and time.monotonic() >= deadline)):
            _end(run)  # cut short: the sweep would wait for trials no one adds (a resumable one waits for its next driver)
    return study


def _adopt(study: optuna.Study, run: Sweep, space: Mapping[str, Any],
           add: Callable[[Any, Mapping[str, Any]], Job]) -> List[Tuple[Any, Job, bool, Set[int]]]:
    """The study's trials of sweep ``run`` as a driver before left them: (trial, job, told already, the steps
    reported to the study).
    A running trial whose job was added is followed again; one asked but not added is added now (under its
    number as key, so one added just before that driver died is the same job); one not fully sampled never
    ran and is told failed, outside the count."""
    import optuna

    out: List[Tuple[Any, Job, bool, Set[int]]] = []
    for frozen in study.get_trials(deepcopy=False):
        if frozen.user_attrs.get("warmpool_sweep") != run.id:
            if frozen.state == optuna.trial.TrialState.RUNNING and "warmpool_job" not in frozen.user_attrs:
                study.tell(frozen.number, state=optuna.trial.TrialState.FAIL)  # asked, never ours, never ran
            continue
        jid = frozen.user_attrs.get("warmpool_job")
        if frozen.state.is_finished():
            out.append((frozen, Job(run._client, {"id": jid}), True, set()))
            continue
        trial = optuna.trial.Trial(study, frozen._trial_id)
        if jid is None:
            if set(frozen.params) != set(space):
                study.tell(frozen.number, state=optuna.trial.TrialState.FAIL)
                continue
            job = add(trial, frozen.params)
        else:
            job = Job(run._client, {"id": jid})
        out.append((trial, job, False, set(frozen.intermediate_values)))
    return out


def _end(run: Sweep) -> None:
    """Cancels the study's sweep unless it has ended."""
    try:
        run.cancel()
    except (errors.Conflict, errors.NotFound):
        pass  # it ended (its last trial did) or expired


class _ObjectiveWatch:
    """Counts the succeeded trials with and without a finite objective; warns (a
    :class:`~warmpool.errors.SweepWarning`) once, after the first ``after`` of them, if none had it."""

    def __init__(self, study: optuna.Study, objective: str, after: int) -> None:
        self.study, self.objective, self.after = study, objective, after
        self.seen = self.missing = 0

    def succeeded(self, metrics: Mapping[str, Any]) -> None:
        value = metrics.get(self.objective)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            self.seen += 1
            return
        self.missing += 1
        if self.seen or self.missing != self.after:
            return
        if self.objective in metrics:
            why = ("The first %d trials that succeeded reported the objective '%s' only as NaN, an infinity or no "
                   "number, so none of them can be the best." % (self.missing, self.objective))
        else:
            names = ", ".join(sorted(str(k) for k in metrics)[:20]) or "none"
            why = ("None of the first %d trials that succeeded reported the objective metric '%s' (the last one's "
                   "metrics: %s); check the objective's name against what the trials return."
                   % (self.missing, self.objective, names))
        warnings.warn("study %s: %s" % (self.study.study_name, why), errors.SweepWarning, stacklevel=3)


def _best(study: optuna.Study) -> Optional[Dict[str, Any]]:
    """The best value so far, as the sweep's bar shows it; None before a trial completed."""
    try:
        return {"value": study.best_value}
    except ValueError:
        return None


def _prune(client: Client, job: Job, step: int) -> None:
    reason = "pruned by the Optuna study at step %d" % step
    try:
        client.request("DELETE", job._path() + "?state=EARLY_STOPPED&reason=" + urllib.parse.quote(reason))
    except errors.Conflict:
        pass  # it ended first: its own end is what the study is told


class Journal:
    """An Optuna journal backend kept in warmpool: an external sweep's journal (``/sweeps/{id}/journal``).
    ``optuna.storages.JournalStorage(Journal(sweep))`` keeps a study where its sweep is, so a driver that
    died leaves it for the next (:func:`journal` builds that storage).

    One driver at a time writes a sweep's journal (the next starts when the one before has died): the
    journal is read from the server once, then kept here with what this driver appends, so Optuna's
    many reads of its own log cost no call (each of its writes is one append, made before it returns)."""

    def __init__(self, sweep: Sweep) -> None:
        self.sweep = sweep
        self._logs: Optional[List[Dict[str, Any]]] = None

    def _all(self) -> List[Dict[str, Any]]:
        if self._logs is None:
            self._logs = self.sweep.journal(0)
        return self._logs

    def read_logs(self, log_number_from: int) -> List[Dict[str, Any]]:
        return self._all()[log_number_from:]

    def append_logs(self, logs: List[Dict[str, Any]]) -> None:
        known = self._all()
        self.sweep.append_journal(logs)
        known.extend(json.loads(json.dumps(logs)))  # as the server gives them back


def journal(sweep: Sweep) -> Any:
    """An ``optuna.storages.JournalStorage`` whose log is ``sweep``'s journal in warmpool:
    ``optuna.create_study(study_name=sweep.id, storage=journal(sweep), load_if_exists=True, ...)``."""
    import optuna

    import importlib

    try:  # Optuna 4: optuna.storages.journal.BaseJournalBackend
        base = getattr(importlib.import_module("optuna.storages.journal"), "BaseJournalBackend")
    except (ImportError, AttributeError):  # Optuna 3
        base = getattr(importlib.import_module("optuna.storages._journal.base"), "BaseJournalLogStorage")
    backend = type("WarmpoolJournal", (Journal, base), {})(sweep)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)  # Optuna 3's word on JournalStorage
        return optuna.storages.JournalStorage(backend)
