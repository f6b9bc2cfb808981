"""What a tuning run reports: out-of-fold figures with bootstrap CIs, the in-sample best and the
optimism gap, each fold's choice and how stable it is, and paired tests of the out-of-fold
scores against the preset's default and each single retriever (eval.scoring.stats)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from eval.scoring.stats import PairedComparison, bootstrap_ci, paired_test
from eval.tune.protocol import TuneResult
from eval.tune.scorer import Scores
from eval.tune.space import point_key
from rag.config import PipelineConfig, with_overrides


def _num(x: float) -> float | None:
    return x if math.isfinite(x) else None


def figures(scores: Scores, n_resamples: int, seed: int) -> dict[str, Any]:
    """Mean and 95% bootstrap CI per metric (queries in qid order, so CIs are paired)."""
    out: dict[str, Any] = {"metrics": {}, "ci95": {}, "n_queries": 0}
    for metric, values in scores.items():
        ordered = [values[q] for q in sorted(values)]
        interval = bootstrap_ci(ordered, 0.95, n_resamples, seed)
        out["metrics"][metric] = _num(float(np.mean(ordered))) if ordered else None
        out["ci95"][metric] = [_num(interval.low), _num(interval.high)]
        out["n_queries"] = max(out["n_queries"], len(ordered))
    return out


def stability(chosen: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """How often folds agree: the share of folds choosing the most common point, and per setting
    the most common value and its share."""
    whole = Counter(point_key(p) for p in chosen)
    per_setting: dict[str, Any] = {}
    for key in dict.fromkeys(k for p in chosen for k in p):
        counts = Counter(point_key({"v": p.get(key)}) for p in chosen)
        label, n = counts.most_common(1)[0]
        value = next(p.get(key) for p in chosen if point_key({"v": p.get(key)}) == label)
        per_setting[key] = {"modal": value, "share": n / len(chosen),
                            "distinct": len(counts)}
    return {"modal_point_share": whole.most_common(1)[0][1] / len(chosen),
            "distinct_points": len(whole), "per_setting": per_setting}


def comparison_json(test: PairedComparison) -> dict[str, Any]:
    return {"baseline": test.mean_a, "tuned_oof": test.mean_b, "diff": test.diff,
            "ci95": test.ci.as_list(), "p_value": test.p_value, "wins": test.wins,
            "losses": test.losses, "n": test.n, "test": test.method}


def comparisons(result: TuneResult, seed: int) -> dict[str, PairedComparison]:
    """Out-of-fold scores (B) against each baseline (A) on the objective, paired by query."""
    metric = result.objective
    return {name: paired_test(scores[metric], result.oof[metric], seed=seed)
            for name, scores in result.baselines.items() if scores[metric]}


def best_single(result: TuneResult) -> str | None:
    """The single retriever with the higher mean objective (the harder baseline)."""
    singles = {n: s[result.objective] for n, s in result.baselines.items() if n != "default"}
    if not singles:
        return None
    return max(singles, key=lambda n: float(np.mean(list(singles[n].values()) or [-1.0])))


def tune_json(result: TuneResult, dataset: Mapping[str, Any], n_resamples: int,
              seed: int) -> dict[str, Any]:
    metric = result.objective
    oof = figures(result.oof, n_resamples, seed)
    in_sample = figures(result.in_sample_scores, n_resamples, seed)
    tests = comparisons(result, seed)
    best, estimate = in_sample["metrics"][metric], oof["metrics"][metric]
    optimism = best - estimate if best is not None and estimate is not None else None
    return {
        "preset": result.preset,
        "dataset": dict(dataset),
        "space": result.space.as_json(),
        "objective": metric,
        "protocol": {"folds": len(result.folds), "trials": result.n_trials, "seed": result.seed,
                     "search": result.folds[0].search.method,
                     "selection": "on the training folds only; each query scored once, out of "
                                  "fold, by a point chosen without it"},
        "out_of_fold": oof,
        "in_sample": {"point": dict(result.in_sample.best.point), **in_sample},
        "optimism": optimism,
        "folds": [{"fold": f.fold, "n_test": len(f.test), "chosen": dict(f.chosen),
                   "train_score": _num(f.train_score), "test_score": _num(f.test_score),
                   "refused_points": sum(t.error is not None for t in f.search.trials)}
                  for f in result.folds],
        "stability": stability([f.chosen for f in result.folds]),
        "baselines": {name: figures(s, n_resamples, seed) for name, s in result.baselines.items()},
        "best_single_retriever": best_single(result),
        "paired_tests": {name: comparison_json(t) for name, t in tests.items()},
        "timing_s": {"retrieval": result.retrieval_s, "rescoring": result.rescoring_s,
                     "total": result.total_s, "tail_runs": result.tails},
        "notes": list(result.notes),
    }


def per_query_rows(result: TuneResult) -> list[dict[str, Any]]:
    """One row per query: its fold, the point that scored it, its out-of-fold metrics."""
    chosen = {f.fold: dict(f.chosen) for f in result.folds}
    rows = []
    for qid, fold in sorted(result.fold_of.items()):
        rows.append({"qid": qid, "fold": fold, "point": chosen[fold],
                     "metrics": {m: result.oof[m].get(qid) for m in result.metrics}})
    return rows


def _fmt(x: Any) -> str:
    return "n/a" if x is None else f"{x:.4f}"


def summary_lines(report: Mapping[str, Any]) -> list[str]:
    metric = report["objective"]
    oof, ins = report["out_of_fold"], report["in_sample"]
    lo, hi = oof["ci95"][metric]
    lines = [
        f"{report['preset']}: {oof['n_queries']} queries, {report['protocol']['folds']} folds, "
        f"{report['protocol']['trials']} trials ({report['protocol']['search']})",
        f"  out-of-fold {metric} {_fmt(oof['metrics'][metric])} [{_fmt(lo)}, {_fmt(hi)}]",
        f"  in-sample best {_fmt(ins['metrics'][metric])}  optimism {_fmt(report['optimism'])}"
        f"  ({ins['point']})",
    ]
    for fold in report["folds"]:
        lines.append(f"  fold {fold['fold']}: train {_fmt(fold['train_score'])} "
                     f"test {_fmt(fold['test_score'])}  {fold['chosen']}")
    st = report["stability"]
    lines.append(f"  stability: the most common point chosen by {st['modal_point_share']:.0%} of "
                 f"folds ({st['distinct_points']} distinct)")
    for name, t in report["paired_tests"].items():
        star = " (best single retriever)" if name == report["best_single_retriever"] else ""
        lines.append(f"  vs {name}{star}: {_fmt(t['baseline'])} -> {_fmt(t['tuned_oof'])} "
                     f"diff {t['diff']:+.4f} [{t['ci95'][0]:+.4f}, {t['ci95'][1]:+.4f}] "
                     f"p={t['p_value']:.4f} (wins {t['wins']}, losses {t['losses']})")
    return lines


def tuned_preset(result: TuneResult, report: dict[str, Any]) -> PipelineConfig:
    """The point chosen on all queries as a preset, its description saying what to expect."""
    metric = result.objective
    oof = report["out_of_fold"]
    description = (f"{result.preset} tuned over {len(result.folds)} folds x {result.n_trials} "
                   f"trials: out-of-fold {metric} {oof['metrics'][metric]:.4f} "
                   f"[{oof['ci95'][metric][0]:.4f}, {oof['ci95'][metric][1]:.4f}], in-sample "
                   f"{report['in_sample']['metrics'][metric]:.4f} (expect the out-of-fold one)")
    return with_overrides(result.final, {"name": f"{result.preset}-tuned",
                                         "description": description})
