"""`python -m eval compare BASELINE CANDIDATE [--metric ndcg@10] [--fail-on-regression MARGIN]
[--json] [--collection NAME] [--qa SET]`

Two stored runs side by side. BASELINE and CANDIDATE are run folders, run ids (or a unique part
of one, as `eval runs list` prints them), or `latest` / `best` among the runs of --collection and
--qa (best: the highest --metric among runs comparable with the newest). Prints the config diff
(only what changed, as YAML paths), each metric's difference with a paired randomization test
and a bootstrap 95% CI, and the questions that got better and worse, largest change first; says
so when the two were scored on different documents, questions or labels.

With --fail-on-regression MARGIN the exit code is 1 when the candidate is worse than the
baseline on --metric by more than MARGIN with p < 0.05 (the regressed questions are named),
else 0 — a gate for CI.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from eval.runs.history import resolve
from eval.runs.run_compare import Gate, QuestionDelta, RunComparison, compare_runs, comparison_json
from eval.runs.store import load_run


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("compare", help="compare two stored runs (a regression gate)",
                                   description=__doc__)
    parser.add_argument("baseline", help="run folder, run id, latest or best")
    parser.add_argument("candidate", help="run folder, run id, latest or best")
    parser.add_argument("--metric", default="ndcg@10", help="the metric questions are ranked by "
                        "and the gate reads (default ndcg@10)")
    parser.add_argument("--fail-on-regression", type=float, default=None, metavar="MARGIN",
                        help="exit 1 when the candidate is worse by more than MARGIN, p < 0.05")
    parser.add_argument("--json", action="store_true", help="the comparison as JSON")
    parser.add_argument("--collection", metavar="NAME",
                        help="latest/best among runs of this collection (or dataset)")
    parser.add_argument("--qa", metavar="SET", help="latest/best among runs on this test set")
    parser.add_argument("--preset", help="latest/best among runs of this preset")
    parser.add_argument("--top", type=int, default=10, help="questions listed each way")
    parser.add_argument("--resamples", type=int, default=10_000,
                        help="random sign flips of the paired test")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs-dir", type=Path, default=None,
                        help="where runs are stored (default: <data dir>/runs)")


def _questions(title: str, items: Sequence[QuestionDelta], top: int) -> list[str]:
    lines = [f"{title} ({len(items)}):"]
    lines += [f"  {q.delta:+.4f}  {q.qid}  {q.baseline:.3f} -> {q.candidate:.3f}  {q.query[:70]}"
              for q in items[:top]]
    if len(items) > top:
        lines.append(f"  … {len(items) - top} more")
    return lines


def report_lines(c: RunComparison, gate: Gate | None, top: int) -> list[str]:
    b, k = c.baseline, c.candidate
    lines = [f"baseline  {b['id']}  ({b['label']}, {b['created'][:19]})",
             f"candidate {k['id']}  ({k['label']}, {k['created'][:19]})"]
    if c.not_comparable:
        lines.append("NOT COMPARABLE: " + "; ".join(c.not_comparable)
                     + " — the differences below mix the change with that")
    lines.append("config diff:" if c.config else "config diff: none (same config)")
    lines += [f"  {d.path}: {d.baseline!r} -> {d.candidate!r}" for d in c.config]
    if c.setup:
        lines.append("also changed (code, packages, mode):")
        lines += [f"  {d.path}: {d.baseline} -> {d.candidate}" for d in c.setup]
    lines.append("metrics (candidate - baseline, paired randomization test, bootstrap 95% CI):")
    lines += [f"  {m.metric:<12} {m.baseline:.4f} -> {m.candidate:.4f}  {m.diff:+.4f} "
              f"[{m.ci[0]:+.4f}, {m.ci[1]:+.4f}]  p={m.p_value:.4f}  better {m.better}, "
              f"worse {m.worse} (of {m.n})" for m in c.metrics]
    if c.only_baseline or c.only_candidate:
        lines.append(f"questions in one run only: baseline {c.only_baseline}, "
                     f"candidate {c.only_candidate} (not compared)")
    lines += _questions(f"better on {c.metric}", c.better, top)
    lines += _questions(f"worse on {c.metric}", c.worse, top)
    if gate is not None:
        lines.append(gate.message)
        if gate.failed:
            lines += _questions(f"regressed by more than {gate.margin:g}", gate.regressed, 10**6)
    return lines


def run(args: argparse.Namespace) -> int:
    try:
        refs = [resolve(r, args.runs_dir, args.collection, args.qa, args.metric, args.preset)
                for r in (args.baseline, args.candidate)]
        comparison = compare_runs(load_run(refs[0]), load_run(refs[1]), args.metric,
                                  args.resamples, args.seed)
    except (LookupError, FileNotFoundError) as exc:  # KeyError is a LookupError
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    gate = None if args.fail_on_regression is None else comparison.gate(args.fail_on_regression)
    if args.json:
        json.dump(comparison_json(comparison, gate, None), sys.stdout, indent=1, default=str)
        print()
    else:
        print("\n".join(report_lines(comparison, gate, args.top)))
    return 1 if gate is not None and gate.failed else 0
