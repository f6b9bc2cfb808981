"""`python -m rag query "TEXT" [--collection NAME] [--preset P] [--set k=v …] [--user U] [--json]`.

Runs the query through every stage of the preset and prints what the app shows: the answer with
its [Source N] citations, the sources by document name and character positions, the stages with
status and time, and the final ranking. Models load first, on a line of their own (a second
query in the same process loads nothing: `-` reads one query per line from stdin). `--json`
prints the Trace (secrets masked) with `status` and `error` at the top.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from rag.config import load_preset, parse_set_options, with_overrides
from rag.model_loading import load_models
from rag.outputs.context import BuiltContext
from rag.pipeline import ranked_candidates, run_query
from rag.records.hits import Candidate
from rag.trace import Trace

if TYPE_CHECKING:
    from rag.index.collection import Collection
    from rag.index.ref import IndexRef

_PREVIEW = 80


def add_parser(subparsers: Any) -> None:  # Any: argparse's subparsers type is private
    parser = subparsers.add_parser("query", help="answer a query through a preset, with its trace")
    parser.add_argument("text", help="the question or search text ('-': one per line from stdin)")
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


def _where(source: str, start: int, end: int) -> str:
    """`lumen-notes-faq.txt:2229–2273`: the document's file name and character positions."""
    return f"{PurePath(source).name or source}:{start}–{end}"


def _preview(text: str) -> str:
    return " ".join(text.split())[:_PREVIEW]


def _sources(trace: Trace, names: dict[str, str]) -> list[str]:
    context = trace.output(BuiltContext)
    if context is None:
        return []
    lines = []
    for n, block in enumerate(context.blocks, start=1):
        where = _where(names.get(block.doc_id, block.doc_id), block.start, block.end)
        lines.append(f"  [Source {n}] {where}  (rank {block.rank}, score {block.score:.4f})")
        lines.append(f"      {_preview(block.text)}")
    return lines


def render(trace: Trace) -> str:
    """The answer and its sources, the stages with status and time, then the final ranking."""
    ranking = ranked_candidates(trace)
    names = {c.chunk.doc_id: str(c.chunk.metadata.get("source", c.chunk.doc_id)) for c in ranking}
    lines = [f"query: {trace.query!r}  preset: {trace.preset}  collection: {trace.collection}"]
    if trace.error:
        lines.append(f"error: {trace.error}")
    if trace.answer is not None:
        lines += ["", "answer:", *(f"  {line}" for line in trace.answer.splitlines())]
    sources = _sources(trace, names)
    if sources:
        lines += ["", "sources:", *sources]
    lines += ["", "stages:"]
    for record in trace.records:
        why = record.reason if record.status != "failed" else "see error above"
        why = f"  ({why})" if why else ""
        llm = f"  [{record.llm_budget.describe()}]" if record.llm_budget is not None else ""
        lines.append(f"  {record.stage:<12} {record.status:<9} {record.wall_ms:8.1f} ms{llm}{why}")
    lines.append(f"  {'total':<12} {'':<9} {trace.total_ms:8.1f} ms")
    if ranking:
        lines += ["", "ranking:"]
    for rank, cand in enumerate(ranking, start=1):
        where = _where(names[cand.chunk.doc_id], cand.chunk.start, cand.chunk.end)
        lines.append(f"{rank:>3}. {cand.score:.4f}  {where}  [{_hits(cand)}]")
        lines.append(f"     {_preview(cand.chunk.text)}")
    lines += [f"warning: {w}" for w in trace.warnings]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    texts = [line.strip() for line in sys.stdin] if args.text == "-" else [args.text]
    texts = [t for t in texts if t.strip()]
    if not texts:
        raise ValueError("the query text is empty")
    overrides = parse_set_options(args.overrides)
    if args.collection:
        overrides["index.collection"] = args.collection
    config = with_overrides(load_preset(args.preset), overrides)
    # late: these open the Qdrant client
    from rag.index import IncompatibleConfigError, open_collection
    from rag.index.derived import resolve

    collection = open_collection(config.index.collection)  # a missing one: one clear error line
    collection.store.exists()  # take the store now: a busy one is one clear line, before any work
    notes = sys.stderr if args.json else sys.stdout
    # another preset's chunking/embedding: its index is derived from the collection's documents
    # (once; later queries reuse it) — its own line, never inside a stage's time
    source: IndexRef | Collection = collection  # an incompatible one: the run resolves it and fails
    with contextlib.suppress(IncompatibleConfigError):  # said once, in the trace, by the stage reading it
        source = resolve(collection, config, on_sync=lambda s: print(s.describe(), file=notes))
    status = 0
    for text in texts:
        for load in load_models(config):  # its own line, never inside a stage's time
            print(load.describe(), file=notes)
        trace = run_query(text, config, source, user=args.user)
        print(trace.to_json() if args.json else render(trace))
        status = max(status, 1 if trace.status == "failed" else 0)
    return status
