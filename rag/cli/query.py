"""`python -m rag query "TEXT" [--collection NAME] [--preset P] [--set k=v …] [--user U] [--json]`.

Runs the query through every stage of the preset and prints the Trace: as JSON with `--json`
(secrets masked), else a short table of stages and the final candidates with their scores.
"""

from __future__ import annotations

import argparse
from typing import Any

from rag.config import load_preset, parse_set_options, with_overrides
from rag.pipeline import ranked_candidates, run_query
from rag.retrieve.base import Candidate
from rag.trace import Trace

_PREVIEW = 80


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("query", help="run a query through a preset and show its trace")
    parser.add_argument("text", help="the question or search text")
    parser.add_argument("--collection", help="collection to search (default: the preset's)")
    parser.add_argument("--preset", default="hybrid", help="preset name or YAML path")
    parser.add_argument(
        "--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
        help="config override, e.g. --set fusion.k=30 --set retrieval.top_k=5",
    )  # fmt: skip
    parser.add_argument("--user", help="who asks: sees public chunks and their own private ones")
    parser.add_argument("--json", action="store_true", help="print the full trace as JSON")


def _hits(candidate: Candidate) -> str:
    return " ".join(
        f"{name}#{hit.rank}={hit.raw_score:.3f}" for name, hit in candidate.hits.items()
    )


def render(trace: Trace) -> str:
    """Stages with status and time, then the final ranking with each retriever's rank and score."""
    lines = [f"query: {trace.query!r}  preset: {trace.preset}  collection: {trace.collection}"]
    for record in trace.records:
        why = f"  ({record.reason})" if record.reason else ""
        lines.append(f"  {record.stage:<12} {record.status:<9} {record.wall_ms:8.1f} ms{why}")
    lines.append("")
    for rank, cand in enumerate(ranked_candidates(trace), start=1):
        text = " ".join(cand.chunk.text.split())[:_PREVIEW]
        lines.append(f"{rank:>3}. {cand.score:.4f}  {cand.chunk_id}  [{_hits(cand)}]")
        lines.append(f"     {text}")
    if trace.answer is not None:
        lines += ["", f"answer: {trace.answer}"]
    lines += [f"warning: {w}" for w in trace.warnings]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if not args.text.strip():
        raise ValueError("the query text is empty")
    overrides = parse_set_options(args.overrides)
    if args.collection:
        overrides["index.collection"] = args.collection
    config = with_overrides(load_preset(args.preset), overrides)
    from rag.index import open_collection  # late: opens the Qdrant client

    collection = open_collection(config.index.collection)  # a missing one: one clear error line
    collection.store.exists()  # take the store now: a busy one is one clear line, before any work
    trace = run_query(args.text, config, collection, user=args.user)
    print(trace.to_json() if args.json else render(trace))
    return 1 if trace.status == "failed" else 0
