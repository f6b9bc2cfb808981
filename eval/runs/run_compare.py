"""Two stored runs side by side: what changed in the config (as YAML paths), each metric's
difference with a paired randomization p-value and a bootstrap CI (eval.scoring.paired), the
questions that got better or worse (largest change first), whether the two were scored on the
same documents and labels, and a regression gate for CI.

Questions are paired by id; a question only one run scored is counted, never compared.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from eval.runs.history import why_not_comparable
from eval.runs.store import StoredRun, summary_row
from eval.scoring.paired import paired_tests
from rag.chunking.base import Chunk

ALPHA = 0.05  # the gate's significance level
_ABSENT = "(absent)"


@dataclass(frozen=True)
class ConfigChange:
    path: str  # YAML path, e.g. fusion.k or retrieval.retrievers
    baseline: Any
    candidate: Any


@dataclass(frozen=True)
class MetricDiff:
    metric: str
    n: int
    baseline: float
    candidate: float
    diff: float  # candidate - baseline
    ci: tuple[float, float]
    p_value: float
    better: int  # questions where the candidate scored higher
    worse: int


@dataclass(frozen=True)
class QuestionDelta:
    qid: str
    query: str
    baseline: float
    candidate: float

    @property
    def delta(self) -> float:
        return self.candidate - self.baseline


@dataclass(frozen=True)
class Gate:
    """The regression gate: fails when the candidate is worse by more than `margin` on `metric`
    with p < ALPHA."""

    metric: str
    margin: float
    failed: bool
    message: str
    regressed: tuple[QuestionDelta, ...]


@dataclass(frozen=True)
class RunComparison:
    baseline: Mapping[str, Any]  # each run's list row (eval.runs.store.summary_row)
    candidate: Mapping[str, Any]
    not_comparable: tuple[str, ...]  # why the two were not scored on the same terms
    config: tuple[ConfigChange, ...]
    setup: tuple[ConfigChange, ...]  # what else changed: git commit, package versions, mode
    metrics: tuple[MetricDiff, ...]
    metric: str  # the one questions are ranked by
    questions: tuple[QuestionDelta, ...]  # changed questions, largest change first
    only_baseline: int
    only_candidate: int

    @property
    def better(self) -> list[QuestionDelta]:
        return [q for q in self.questions if q.delta > 0]

    @property
    def worse(self) -> list[QuestionDelta]:
        return [q for q in self.questions if q.delta < 0]

    def metric_diff(self, metric: str) -> MetricDiff:
        for m in self.metrics:
            if m.metric == metric:
                return m
        raise KeyError(f"both runs do not have {metric!r}; shared: "
                       + ", ".join(m.metric for m in self.metrics))

    def gate(self, margin: float) -> Gate:
        m = self.metric_diff(self.metric)
        failed = m.diff < -margin and m.p_value < ALPHA
        regressed = tuple(q for q in self.worse if -q.delta > margin)
        verdict = "REGRESSION" if failed else "no regression"
        message = (f"{verdict}: {self.metric} {m.diff:+.4f} (95% CI {m.ci[0]:+.4f} to "
                   f"{m.ci[1]:+.4f}, p = {m.p_value:.4f}) against a margin of {margin:g}")
        return Gate(self.metric, margin, failed, message, regressed)


def flatten(config: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """{'fusion.k': 60, ...}: nested mappings become YAML paths; lists stay whole values."""
    out: dict[str, Any] = {}
    for key, value in config.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, Mapping) and value:
            out.update(flatten(value, path))
        else:
            out[path] = value
    return out


def config_diff(a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[ConfigChange, ...]:
    """The fields that differ, in YAML-path order."""
    fa, fb = flatten(a), flatten(b)
    return tuple(ConfigChange(p, fa.get(p, _ABSENT), fb.get(p, _ABSENT))
                 for p in sorted(fa.keys() | fb.keys()) if fa.get(p, _ABSENT) != fb.get(p, _ABSENT))


def _setup(run: StoredRun) -> dict[str, Any]:
    """What a run ran on besides its config: code, packages, mode."""
    info = run.info
    versions = {k: v for k, v in (info.get("versions") or {}).items() if k != "git_commit"}
    return {"git_commit": info.get("git_commit") or (info.get("versions") or {}).get("git_commit"),
            "mode": info.get("mode"), "versions": versions}


def _metrics(run: StoredRun) -> list[str]:
    return [c.split(":", 1)[1] for c in run.per_query.columns if c.startswith("metric:")]


def compare_runs(
    baseline: StoredRun, candidate: StoredRun, metric: str | None = None,
    n_resamples: int = 10_000, seed: int = 0,
) -> RunComparison:
    """Candidate minus baseline on every metric both runs have; `metric` (default: the first
    shared one) ranks the questions."""
    shared_metrics = [m for m in _metrics(baseline) if m in set(_metrics(candidate))]
    if not shared_metrics:
        raise ValueError(f"runs {baseline.id} and {candidate.id} share no metric")
    metric = metric or shared_metrics[0]
    if metric not in shared_metrics:
        raise KeyError(f"both runs do not have {metric!r}; shared: {', '.join(shared_metrics)}")
    left = baseline.per_query.drop_duplicates("qid").set_index("qid")
    right = candidate.per_query.drop_duplicates("qid").set_index("qid")
    qids = left.index.intersection(right.index).sort_values()
    columns = [f"metric:{m}" for m in shared_metrics]
    a = left.loc[qids, columns].to_numpy(dtype=float)
    b = right.loc[qids, columns].to_numpy(dtype=float)
    tests = paired_tests(a, b, n_resamples, seed=seed) if len(qids) else []
    diffs = tuple(MetricDiff(m, t.n, t.mean_a, t.mean_b, t.diff, (t.ci.low, t.ci.high),
                             t.p_value, t.wins, t.losses)
                  for m, t in zip(shared_metrics, tests, strict=True))
    j = shared_metrics.index(metric)
    return RunComparison(
        summary_row(baseline.info), summary_row(candidate.info),
        tuple(why_not_comparable(summary_row(baseline.info), summary_row(candidate.info))),
        config_diff(baseline.info.get("config", {}), candidate.info.get("config", {})),
        config_diff(_setup(baseline), _setup(candidate)), diffs, metric,
        _question_deltas(qids, a[:, j], b[:, j], _texts(candidate, baseline)),
        len(left.index.difference(right.index)), len(right.index.difference(left.index)),
    )


def _question_deltas(qids: Any, a: np.ndarray, b: np.ndarray,
                     texts: Mapping[str, str]) -> tuple[QuestionDelta, ...]:
    delta = b - a
    ids = np.asarray([str(q) for q in qids], dtype=object)
    changed = np.flatnonzero(np.isfinite(delta) & (delta != 0))
    order = changed[np.lexsort((ids[changed], -np.abs(delta[changed])))]
    return tuple(QuestionDelta(ids[i], texts.get(ids[i], ""), float(a[i]), float(b[i]))
                 for i in order.tolist())


def _texts(*runs: StoredRun) -> dict[str, str]:
    out: dict[str, str] = {}
    for run in runs:
        if "query" in run.per_query.columns:
            out.update(zip(run.per_query["qid"].astype(str).tolist(),
                           run.per_query["query"].astype(str).tolist(), strict=True))
    return out


def relevance(run: StoredRun, qid: str) -> Callable[[Chunk], bool]:
    """Whether a chunk counts as relevant for `qid`, from the labels the run stored with it:
    its document is relevant, or it overlaps a relevant span."""
    rows = run.per_query[run.per_query["qid"] == str(qid)]
    docs: set[str] = set()
    spans: list[tuple[str, int, int]] = []
    for _, row in rows.head(1).iterrows():
        docs = set(json.loads(row.get("relevant_docs") or "[]"))
        spans = [(d, int(a), int(b)) for d, a, b in json.loads(row.get("relevant_spans") or "[]")]

    def relevant(chunk: Chunk) -> bool:
        if spans:
            return any(d == chunk.doc_id and a < chunk.end and chunk.start < b for d, a, b in spans)
        return chunk.doc_id in docs

    return relevant


def _num(x: float) -> float | None:
    return x if math.isfinite(x) else None


def comparison_json(c: RunComparison, gate: Gate | None = None,
                    top: int | None = None) -> dict[str, Any]:
    """The comparison as JSON; `top` caps each list of questions."""
    def rows(items: Sequence[QuestionDelta]) -> list[dict[str, Any]]:
        return [{"qid": q.qid, "query": q.query, "baseline": q.baseline,
                 "candidate": q.candidate, "delta": q.delta} for q in items[:top]]

    out: dict[str, Any] = {
        "baseline": c.baseline, "candidate": c.candidate,
        "comparable": not c.not_comparable, "not_comparable": list(c.not_comparable),
        "config_diff": [{"path": d.path, "baseline": d.baseline, "candidate": d.candidate}
                        for d in c.config],
        "setup_diff": [{"path": d.path, "baseline": d.baseline, "candidate": d.candidate}
                       for d in c.setup],
        "metrics": [{"metric": m.metric, "n": m.n, "baseline": _num(m.baseline),
                     "candidate": _num(m.candidate), "diff": _num(m.diff),
                     "ci95": [_num(m.ci[0]), _num(m.ci[1])], "p_value": _num(m.p_value),
                     "test": "paired randomization", "better": m.better, "worse": m.worse}
                    for m in c.metrics],
        "ranked_by": c.metric, "better": rows(c.better), "worse": rows(c.worse),
        "only_in_baseline": c.only_baseline, "only_in_candidate": c.only_candidate,
    }
    if gate is not None:
        out["gate"] = {"metric": gate.metric, "margin": gate.margin, "failed": gate.failed,
                       "message": gate.message, "regressed": rows(gate.regressed)}
    return out
