"""The app's page table: one row per page, grouped by pipeline stage; a page exists when its file does."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class PageEntry:
    """One navigation row: `file` is relative to the project root (where app.py lives)."""

    stage: str
    file: str
    title: str
    icon: str
    blurb: str


# A new page is one file under pages/ plus one row here; rows whose file is missing are hidden.
PAGES: tuple[PageEntry, ...] = (
    PageEntry("Ingest", "pages/documents.py", "Documents", ":material/description:",
              "Bring your files in: upload or a folder, ingest into a collection, manage them."),
    PageEntry("Ingest", "pages/chunk_lab.py", "Chunk Lab", ":material/view_agenda:",
              "Compare chunking strategies side by side on one document."),
    PageEntry("Retrieve", "pages/query_lab.py", "Query Lab", ":material/psychology:",
              "Guardrails, intent, routing, rewrites and expansions of a query."),
    PageEntry("Retrieve", "pages/retrieval.py", "Retrieval", ":material/join_inner:",
              "BM25, dense and fused rankings; tune fusion live on cached candidates."),
    PageEntry("Retrieve", "pages/rerank.py", "Rerank", ":material/sort:",
              "Rerankers and score-keeping policies over the fused list."),
    PageEntry("Answer", "pages/answer.py", "Answer", ":material/chat:",
              "Context building, generation with citations and grounding checks."),
    PageEntry("Evaluate", "pages/evaluate.py", "Evaluate", ":material/analytics:",
              "Score presets on test sets with confidence intervals."),
    PageEntry("Evaluate", "pages/runs.py", "Runs", ":material/history:",
              "Every stored run over time; two runs side by side with paired tests."),
    PageEntry("Evaluate", "pages/judge.py", "Judge", ":material/fact_check:",
              "Make a test set from your documents and judge its pooled passages."),
    PageEntry("Evaluate", "pages/systems.py", "Systems", ":material/compare:",
              "The five reference systems side by side on one query."),
)


def available_pages(
    root: Path, table: tuple[PageEntry, ...] = PAGES
) -> dict[str, list[PageEntry]]:
    """Rows whose file exists under `root`, grouped by stage in table order."""
    grouped: dict[str, list[PageEntry]] = {}
    for entry in table:
        if (root / entry.file).is_file():
            grouped.setdefault(entry.stage, []).append(entry)
    return grouped
