"""`python -m rag ingest PATH… --collection NAME [--preset P]`: parse, chunk, embed, index, report."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from rag.config import PipelineConfig, load_preset
from rag.documents import IngestReport
from rag.index import Access, IngestSummary
from rag.index.collection import check_name


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "ingest", help="parse, chunk, embed and index files and folders into a collection"
    )
    parser.add_argument("paths", nargs="+", type=Path, help="files or folders (walked recursively)")
    parser.add_argument("--collection", required=True, help="collection name (created if new)")
    parser.add_argument("--preset", help="preset name or YAML path (default: built-in defaults)")
    parser.add_argument("--owner", help="user the documents belong to")
    parser.add_argument("--private", action="store_true", help="only --owner may see them")
    parser.add_argument("--tag", action="append", default=[], help="tag every chunk (repeatable)")
    parser.add_argument("--trace", type=Path, metavar="FILE",
                        help="write the ingest's stage trace (JSON: per stage its time, counts, "
                             "skipped files) to FILE")


def printable(text: str) -> str:
    """Control characters (newlines, terminal escape codes) in a file name shown escaped, so a
    name cannot break the report's lines or drive the terminal."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def format_report(summary: IngestSummary | None, report: IngestReport, collection: str = "") -> str:
    """The headline (`summary` None: nothing was ingested), then one line per replaced, skipped
    or flagged file."""
    skipped = report.skipped
    if summary is None:
        lines = [f"collection {collection!r}: nothing ingested, all {len(skipped)} file(s) skipped; "
                 "nothing was written"]
    else:
        lines = [
            f"collection {summary.collection!r}: {len(summary.added)} added, "
            f"{len(summary.replaced)} replaced, {len(summary.unchanged)} unchanged, "
            f"{len(skipped)} skipped; {summary.chunks_added} chunks added, "
            f"{summary.chunks_removed} removed; {summary.seconds:.1f} s"
        ]
        if summary.repair is not None:
            lines.append(f"  {summary.repair}")
        lines += [f"  replaced: {printable(source)}" for source in summary.replaced]
    lines += [f"  skipped: {printable(line.source)}: {printable(line.problem)} ({line.action})"
              for line in skipped]
    lines += [f"  flagged: {printable(line.source)}: {printable(warning)}"
              for line in report.lines for warning in line.warnings]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Into the collection's own index (the settings of its first ingest) and, when the preset
    chunks or embeds another way, into the index derived for it (rag/index/derived.py)."""
    config = load_preset(args.preset) if args.preset else PipelineConfig()
    access = Access(
        owner=args.owner, visibility="private" if args.private else "public", tags=tuple(args.tag)
    )
    check_name(args.collection)  # a bad name fails before any parsing
    # late, as the dispatcher loads this module: the ingest pipeline sits on the runner, a floor
    # above the modules the other commands' parsers need (tests/test_rag_floors.py)
    from rag.ingestion import FilePaths, ingest_files

    with tqdm(desc="parsing", unit="file") as bar:

        def advance(done: int, total: int, source: str) -> None:
            bar.total = total
            bar.update(done - bar.n)
            if done == total:
                bar.close()  # parsed: the embedding's bar follows

        files = FilePaths(tuple(args.paths), workers=os.cpu_count() or 1, progress=advance)
        done = ingest_files(files, args.collection, config, access=access,
                            on_sync=lambda synced: print(synced.describe()))
    if args.trace is not None:
        args.trace.write_text(done.trace.to_json(), encoding="utf-8")
    if not done.report.lines:
        raise ValueError(f"no files found under: {', '.join(printable(str(p)) for p in args.paths)}")
    if done.summary is None:  # a new collection is not created empty, an old one is untouched
        print(format_report(None, done.report, args.collection))
        return 1
    print(format_report(done.summary, done.report))
    return 0
