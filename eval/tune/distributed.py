"""Tuning on Optuna's own distributed mode: each search of a cross-validated tune (one per fold,
one on all queries) is an Optuna study in a shared storage, and every process started with the
same storage and study name pulls trials of it until the study holds its trial budget.

Storage is Optuna's: an RDB URL (`sqlite:///tune.db`, `postgresql://user@host/db`, needing that
database's driver) or a journal file (`journal:PATH`, or any path ending in `.log`). The points
tried travel as trial user attributes (JSON), so a process reads back exactly the points another
one scored. A process that finished its share waits for the trials still running elsewhere, then
reads the whole study: every process sees the same trials, so every fold's choice is the same
wherever it is read.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import optuna
from optuna.storages import BaseStorage, JournalStorage, RDBStorage
from optuna.storages.journal import JournalFileBackend
from optuna.trial import TrialState

REFUSED = -1e9  # the value a refused point reports to Optuna (never the best)
RDB_SCHEMES = ("sqlite:", "postgresql", "mysql")


@dataclass(frozen=True)
class StudySpec:
    """Where the studies live and what they are called; `worker` offsets the sampler's seed so
    two workers do not propose the same points in the same order."""

    storage: str
    name: str
    worker: int = 0
    wait_s: float = 3600.0  # how long to wait for other processes' running trials


def open_storage(url: str) -> BaseStorage:
    """Optuna's RDB storage for a database URL, its journal storage for a file."""
    if url.startswith(RDB_SCHEMES):
        kwargs = {"connect_args": {"timeout": 60}} if url.startswith("sqlite:") else {}
        return RDBStorage(url, engine_kwargs=kwargs)
    path = url.removeprefix("journal:")
    if url.startswith("journal:") or path.endswith(".log"):
        return JournalStorage(JournalFileBackend(path))
    raise ValueError(f"--storage {url!r}: give an RDB URL (sqlite:///FILE.db, postgresql://…) or "
                     "a journal file (journal:PATH or PATH.log)")


def study_name(parts: Mapping[str, Any]) -> str:
    """A name every process of one tune derives alike: 'tune-' + a hash of what it tunes."""
    text = json.dumps(dict(parts), sort_keys=True, default=str)
    return "tune-" + hashlib.sha256(text.encode()).hexdigest()[:12]


def _key(label: str) -> str:
    return label.split()[0] if label.startswith("all") else label.replace(" ", "").replace("/", "of")


def shared_trials(
    spec: StudySpec, label: str, n_trials: int, seed: int,
    run: Callable[[optuna.Trial], float],
) -> list[tuple[dict[str, Any], float, str | None]]:
    """Pull trials of the study for `label` until it holds `n_trials`, wait for the ones other
    processes are running, and return every finished trial as (point, score, error) in trial
    order. `run` scores one trial and records its point (`record_point`)."""
    storage = open_storage(spec.storage)
    sampler = optuna.samplers.TPESampler(seed=seed + 7919 * spec.worker)
    study = optuna.create_study(storage=storage, study_name=f"{spec.name}-{_key(label)}",
                                direction="maximize", sampler=sampler, load_if_exists=True)
    budget = optuna.study.MaxTrialsCallback(n_trials, states=None)  # running ones count too
    if len(study.get_trials(deepcopy=False)) < n_trials:
        study.optimize(run, callbacks=[budget])
    deadline = time.monotonic() + spec.wait_s
    while any(t.state in (TrialState.RUNNING, TrialState.WAITING)
              for t in study.get_trials(deepcopy=False)) and time.monotonic() < deadline:
        time.sleep(0.2)
    finished = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
    out = []
    for t in sorted(finished, key=lambda t: t.number)[:n_trials]:
        error = t.user_attrs.get("error")
        score = math.nan if error is not None or t.value is None else float(t.value)
        out.append((json.loads(t.user_attrs["point"]), score, error))
    return out


def record_point(trial: optuna.Trial, point: Mapping[str, Any], error: str | None) -> None:
    """Keep the point a trial scored (and why it was refused) with the trial, and which process
    scored it (host:pid)."""
    trial.set_user_attr("point", json.dumps(dict(point), default=str))
    trial.set_user_attr("process", f"{socket.gethostname()}:{os.getpid()}")
    if error is not None:
        trial.set_user_attr("error", error)
