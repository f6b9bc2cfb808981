"""`python -m eval runs list [--collection NAME] [--qa SET] [--preset P] [--json]`

The stored runs (every `eval run`, sweep point, tune, and every run from the app), newest first:
when, collection or dataset with its data hash, test set with its hash and who labelled it,
preset and config hash, main metrics with 95% intervals, latency, git commit, user. A run whose
collection was deleted is marked orphaned; a run scored on other documents or labels than the
newest run of its test set is marked not comparable (`!`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from eval.runs.history import RunRow, list_rows

MAIN_METRIC = "ndcg@10"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("runs", help="the stored runs", description=__doc__)
    actions = parser.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help="list stored runs, newest first")
    listing.add_argument("--collection", metavar="NAME",
                         help="runs on this collection (or BEIR dataset name)")
    listing.add_argument("--qa", metavar="SET", help="runs on this test set")
    listing.add_argument("--preset", help="runs of this preset (or label)")
    listing.add_argument("--metric", default=MAIN_METRIC, help="the metric shown (default ndcg@10)")
    listing.add_argument("--limit", type=int, default=None, help="show the newest N")
    listing.add_argument("--json", action="store_true", help="one JSON array of run rows")
    listing.add_argument("--runs-dir", type=Path, default=None,
                         help="where runs are stored (default: <data dir>/runs)")


def add_store_options(parser: argparse.ArgumentParser) -> None:
    """--runs-dir, --no-store and --user for a command that stores runs."""
    parser.add_argument("--runs-dir", type=Path, default=None,
                        help="where runs are stored (default: <data dir>/runs)")
    parser.add_argument("--no-store", action="store_true", help="do not store the run(s)")
    parser.add_argument("--user", default=None, help="who ran it, stored with the run "
                        "(default: RAG_WORKBENCH_USER or the login name)")


def row_json(row: RunRow) -> dict[str, object]:
    return {**row.data, "path": str(row.path), "orphaned": row.orphaned,
            "comparable": row.comparable, "not_comparable_because": row.why_not or None}


def _fmt(x: float | None) -> str:
    return "  n/a " if x is None else f"{x:.4f}"


def line(row: RunRow, metric: str) -> str:
    ci = row.data.get("ci95", {}).get(metric) or [None, None]
    latency = (row.data.get("latency_ms") or {}).get("p50")
    test = row.testset
    marks = ("!" if not row.comparable else " ") + ("o" if row.orphaned else " ")
    return (f"{marks} {row.created[:19].replace('T', ' ')}  {row.id}\n"
            f"     {row.scope} [{row.data_hash[:8]}] · {test.get('name')} [{str(test.get('hash'))[:8]}, "
            f"{test.get('labels')}] · {row.label} cfg {row.data.get('config_hash')} · "
            f"{metric} {_fmt(row.metric(metric))} [{_fmt(ci[0])}, {_fmt(ci[1])}] · "
            f"p50 {'-' if latency is None else f'{latency:.1f} ms'} · "
            f"{str(row.data.get('git_commit') or '-')[:12]} · {row.data.get('user') or '-'}")


def print_rows(rows: Sequence[RunRow], metric: str) -> None:
    for row in rows:
        print(line(row, metric))
        if row.why_not:
            print(f"     not comparable with the newest run of this test set: {row.why_not}")
    print(f"{len(rows)} run(s); ! not comparable, o orphaned (its collection was deleted)")


def run(args: argparse.Namespace) -> int:
    rows = list_rows(args.runs_dir, args.collection, args.qa, args.preset)
    if args.limit is not None:
        rows = rows[:args.limit]
    if args.json:
        json.dump([row_json(r) for r in rows], sys.stdout, indent=1, default=str)
        print()
    else:
        print_rows(rows, args.metric)
    return 0
