"""`python -m rag chunk FILE [--strategy NAME] [--preset P] [--set key=value …] [--json]`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rag.chunking import Chunk, get_chunker, strategy_settings
from rag.chunking.stats import stats_by_level
from rag.config import PipelineConfig, load_preset, parse_set_options
from rag.documents import Document, DocumentError, parse_file

_PREVIEW = 70


def add_parser(subparsers: Any) -> None:  # Any: argparse's subparsers type is private
    parser = subparsers.add_parser("chunk", help="split one file into chunks and print them")
    parser.add_argument("file", type=Path, help="a document (pdf, docx, pptx, txt, md, csv, html)")
    parser.add_argument("--strategy", help="chunking strategy (default: the preset's)")
    parser.add_argument("--preset", help="preset name or YAML path whose chunking section is used")
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="strategy parameter, e.g. --set size=256 (dotted keys reach nested params)",
    )
    parser.add_argument("--json", action="store_true", help="print the chunks as JSON")


def _with_override(params: dict[str, Any], dotted: str, value: Any) -> dict[str, Any]:
    """A copy of `params` with `a.b.c` set (nested dicts are created as needed)."""
    head, _, rest = dotted.partition(".")
    if not rest:
        return {**params, head: value}
    inner = params.get(head, {})
    if not isinstance(inner, dict):
        raise ValueError(f"--set {dotted}: {head!r} is not a group of parameters")
    return {**params, head: _with_override(inner, rest, value)}


def resolve(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """Strategy name and checked params from --preset, --strategy and --set."""
    chunking = (load_preset(args.preset) if args.preset else PipelineConfig()).chunking
    name = args.strategy or chunking.strategy
    # The preset's params only apply to its own strategy; another one starts from its defaults.
    base = chunking.params if name == chunking.strategy else {}
    # Spelled out in full, so --set can reach into nested defaults (doc_type routes).
    params = strategy_settings(name, base).model_dump(mode="json")
    for key, value in parse_set_options(args.overrides).items():
        params = _with_override(params, key, value)
    strategy_settings(name, params)  # a bad value: one clear error line
    return name, params


def chunk_rows(chunks: list[Chunk]) -> list[dict[str, Any]]:
    return [
        {
            "id": c.chunk_id,
            "doc_id": c.doc_id,
            "start": c.start,
            "end": c.end,
            "level": c.level,
            "parent_id": c.parent_id,
            "text": c.text,
            "metadata": dict(c.metadata),
        }
        for c in chunks
    ]


def format_table(chunks: list[Chunk], document: Document, name: str) -> str:
    lines = [f"{document.metadata.source}: {len(document.text)} chars, strategy {name}"]
    for level, stats in stats_by_level(chunks, document).items():
        lines.append(
            f"  {level}: {stats.count} chunks, {stats.min_chars}/{stats.mean_chars:.0f}/"
            f"{stats.max_chars} chars (min/mean/max), overlap {stats.overlap_ratio:.1%}, "
            f"coverage {stats.coverage:.1%}"
        )
    lines.append(
        f"{'#':>4}  {'level':<9} {'start':>7} {'end':>7} {'chars':>6}  {'parent':<16}  text"
    )
    for i, c in enumerate(chunks):
        preview = c.text.replace("\n", "⏎")[:_PREVIEW]
        lines.append(
            f"{i:>4}  {c.level:<9} {c.start:>7} {c.end:>7} {c.size:>6}  "
            f"{c.parent_id or '-':<16}  {preview}"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    name, params = resolve(args)
    try:
        document = parse_file(args.file)
    except DocumentError as exc:
        raise ValueError(f"{args.file}: {exc}") from None
    chunks = get_chunker(name, params).chunk(document)
    if args.json:
        print(json.dumps(chunk_rows(chunks), ensure_ascii=False, indent=2))
    else:
        print(format_table(chunks, document, name))
    return 0
