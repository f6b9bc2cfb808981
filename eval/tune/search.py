"""Search a space for the point that maximizes an objective: every grid point when the space is
a grid no larger than the trial budget, else Optuna's TPE sampler (Bergstra et al. 2011),
seeded. A progress bar shows the best score so far; a point the config refuses scores nothing
and says why (it is kept in the trials, never chosen)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import optuna
from tqdm import tqdm

from eval.tune.distributed import REFUSED, StudySpec, record_point, shared_trials
from eval.tune.space import Setting, Space

Objective = Callable[[Mapping[str, Any]], float]
# (trials done, trials planned, best score so far) after each trial
OnTrial = Callable[[int, int, float], None]
Method = Literal["grid", "tpe"]


@dataclass(frozen=True)
class Trial:
    point: Mapping[str, Any]
    score: float  # NaN when the point could not be scored (see error)
    error: str | None = None


@dataclass(frozen=True)
class Search:
    method: Method
    trials: tuple[Trial, ...]

    @property
    def best(self) -> Trial:
        """The best-scoring trial; the first one on ties (grid order / sampling order)."""
        scored = [t for t in self.trials if not math.isnan(t.score)]
        if not scored:
            reasons = sorted({t.error or "" for t in self.trials})
            raise ValueError(f"no point of the space could be scored: {'; '.join(reasons)}")
        return max(scored, key=lambda t: t.score)  # max keeps the first of equals


def _label(value: Any) -> Any:
    """Optuna's categorical choices must be scalars; lists and mappings travel as JSON text."""
    return value if value is None or isinstance(value, str | int | float | bool) else \
        json.dumps(value, sort_keys=True)


def _suggest(trial: optuna.Trial, setting: Setting) -> Any:
    if setting.choices:
        labels = [_label(v) for v in setting.choices]
        picked = trial.suggest_categorical(setting.key, labels)
        return setting.choices[labels.index(picked)]
    assert setting.low is not None and setting.high is not None
    if setting.integer:
        return trial.suggest_int(setting.key, int(setting.low), int(setting.high), log=setting.log)
    return trial.suggest_float(setting.key, setting.low, setting.high, log=setting.log)


def _score(objective: Objective, point: Mapping[str, Any]) -> Trial:
    try:
        return Trial(point, float(objective(point)))
    except ValueError as exc:  # a refused value (e.g. top_k > depth): recorded, never chosen
        return Trial(point, math.nan, f"{type(exc).__name__}: {exc}")


def search(
    space: Space, objective: Objective, n_trials: int, seed: int = 0, label: str = "tuning",
    on_trial: OnTrial | None = None, progress: bool = True, study: StudySpec | None = None,
) -> Search:
    """Maximize `objective` over `space` with at most `n_trials` evaluations; with `study`, as
    one Optuna study in shared storage that other processes work on too (always TPE)."""
    if n_trials < 1:
        raise ValueError(f"trials must be >= 1, got {n_trials}")
    if study is not None:
        return _shared_search(space, objective, n_trials, seed, label, study)
    size = space.grid_size()
    method: Method = "grid" if size is not None and size <= n_trials else "tpe"
    planned = size if method == "grid" and size is not None else n_trials
    trials: list[Trial] = []
    bar = tqdm(total=planned, desc=label, unit="trial", disable=not progress, leave=False)

    def record(trial: Trial) -> float:
        trials.append(trial)
        best = max((t.score for t in trials if not math.isnan(t.score)), default=math.nan)
        bar.update(1)
        bar.set_postfix(best=f"{best:.4f}")
        if on_trial is not None:
            on_trial(len(trials), planned, best)
        return trial.score

    try:
        if method == "grid":
            for point in space.grid():
                record(_score(objective, point))
        else:
            optuna.logging.set_verbosity(optuna.logging.WARNING)
            study = optuna.create_study(direction="maximize",
                                        sampler=optuna.samplers.TPESampler(seed=seed))

            def run(trial: optuna.Trial) -> float:
                score = record(_score(objective, _point(trial, space)))
                return score if not math.isnan(score) else -1e9  # refused: worst possible

            study.optimize(run, n_trials=n_trials)
    finally:
        bar.close()
    return Search(method, tuple(trials))


def _point(trial: optuna.Trial, space: Space) -> dict[str, Any]:
    point: dict[str, Any] = {}
    for setting in space.settings:  # define-by-run: conditional settings
        if setting.active(point):
            point[setting.key] = _suggest(trial, setting)
    return point


def _shared_search(space: Space, objective: Objective, n_trials: int, seed: int, label: str,
                   study: StudySpec) -> Search:
    optuna.logging.set_verbosity(optuna.logging.WARNING)

    def run(trial: optuna.Trial) -> float:
        point = _point(trial, space)
        scored = _score(objective, point)
        record_point(trial, point, scored.error)
        return scored.score if not math.isnan(scored.score) else REFUSED

    found = shared_trials(study, label, n_trials, seed, run)
    return Search("tpe", tuple(Trial(p, s, e) for p, s, e in found))
