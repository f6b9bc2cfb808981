"""How chunk scores become document scores when qrels judge documents (Dai & Callan 2019):

- `max` (MaxP): a document scores as its best chunk — the default;
- `first` (FirstP): as its earliest chunk (lowest offset) among those the run returned;
- `sum:N` (SumP): the sum of its N best chunks' scores (several good chunks add up).
With `whole` chunking every document is one chunk and all three agree.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass

from rag.index.hits import Candidate


@dataclass(frozen=True)
class DocScore:
    how: str  # "max", "first" or "sum"
    n: int = 1  # sum: how many of a document's best chunks

    @property
    def label(self) -> str:
        return f"sum:{self.n}" if self.how == "sum" else self.how


def parse_doc_score(text: str) -> DocScore:
    """'max', 'first' or 'sum:N' (N ≥ 1); anything else is an error naming the valid forms."""
    name, _, n = text.strip().partition(":")
    if name in ("max", "first") and not n:
        return DocScore(name)
    if name == "sum" and n.isdigit() and int(n) >= 1:
        return DocScore("sum", int(n))
    raise ValueError(f"doc score {text!r} is not one of: max, first, sum:N (N >= 1)")


MAX = DocScore("max")


def doc_ranking(
    candidates: Iterable[Candidate], limit: int | None = None, how: DocScore = MAX
) -> dict[str, float]:
    """{doc_id: score} for the first `limit` documents met in the candidates (best first)."""
    chunks: dict[str, list[Candidate]] = {}
    for cand in candidates:
        if cand.chunk.doc_id in chunks:
            chunks[cand.chunk.doc_id].append(cand)
        elif limit is None or len(chunks) < limit:
            chunks[cand.chunk.doc_id] = [cand]
    if how.how == "first":
        return {d: min(found, key=lambda c: (c.chunk.start, -c.score)).score
                for d, found in chunks.items()}
    if how.how == "sum":
        return {d: sum(heapq.nlargest(how.n, (c.score for c in found)))
                for d, found in chunks.items()}
    return {d: max(c.score for c in found) for d, found in chunks.items()}
