"""pandas tables the pages show: ingest report, PII matches, chunk stats, ranked lists."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath

import pandas as pd

from rag.chunking import Chunk
from rag.documents import IngestReport, PiiMatch
from rag.index import Candidate


def snippet(text: str, width: int = 160) -> str:
    """One line of at most `width` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def ingest_report_frame(report: IngestReport) -> pd.DataFrame:
    """One row per file: ok / skipped, size, for skipped files the problem and what to do, and
    warnings (bytes read as latin-1, text addressed to the assistant)."""
    return pd.DataFrame(
        [
            {"file": PurePath(line.source).name, "status": line.status, "characters": line.chars,
             "problem": line.problem, "what to do": line.action, "warnings": " · ".join(line.warnings)}
            for line in report.lines
        ],
        columns=["file", "status", "characters", "problem", "what to do", "warnings"],
    )


def pii_frame(matches: Sequence[PiiMatch]) -> pd.DataFrame:
    return pd.DataFrame(
        [{"kind": m.kind, "value": m.value, "start": m.start, "end": m.end} for m in matches],
        columns=["kind", "value", "start", "end"],
    )


def chunk_frame(chunks: Sequence[Chunk], labels: Mapping[str, str]) -> pd.DataFrame:
    """One row per chunk: display label, level, offsets, size, parent label and a snippet."""
    return pd.DataFrame(
        [
            {"chunk": labels.get(c.chunk_id, c.chunk_id), "level": c.level, "start": c.start,
             "end": c.end, "chars": c.size,
             "parent": labels.get(c.parent_id, c.parent_id) if c.parent_id else "",
             "text": snippet(c.text, 80)}
            for c in chunks
        ],
        columns=["chunk", "level", "start", "end", "chars", "parent", "text"],
    )


def ranked_frame(candidates: Sequence[Candidate], labels: Mapping[str, str]) -> pd.DataFrame:
    """Rank, score, chunk label (source and offset) and a snippet for one ranked list."""
    return pd.DataFrame(
        [
            {"rank": i, "score": c.score, "chunk": labels.get(c.chunk_id, c.chunk_id),
             "text": snippet(c.chunk.text, 90)}
            for i, c in enumerate(candidates, start=1)
        ],
        columns=["rank", "score", "chunk", "text"],
    )


def breakdown_frame(candidate: Candidate) -> pd.DataFrame:
    """Per retriever: where it ranked the chunk, its raw and normalized score, its contribution."""
    names = list(dict.fromkeys([*candidate.hits, *candidate.contributions]))
    rows = []
    for name in names:
        hit = candidate.hits.get(name)
        rows.append({
            "retriever": name,
            "rank": hit.rank if hit else None,
            "raw score": hit.raw_score if hit else None,
            "normalized": hit.normalized if hit else None,
            "contribution": candidate.contributions.get(name),
        })
    return pd.DataFrame(rows, columns=["retriever", "rank", "raw score", "normalized", "contribution"])
