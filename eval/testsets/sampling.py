"""Which chunks a generator asks about: spread over documents and over positions inside each
document, so that no file (and no part of a file, such as its introduction) dominates the set.

Allocation is round-robin over the documents in a seeded random order: every document gets one
chunk before any gets a second, and a document with fewer usable chunks drops out of the later
rounds. Inside a document its k picks come one from each of k equal strata of its chunks, so they
cover beginning, middle and end (stratified sampling, Cochran 1977, ch. 5).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rag.chunking.base import Chunk

MIN_CHUNK_CHARS = 200  # a priori: shorter pieces (headings, table rows) seldom hold a fact to ask about


@dataclass(frozen=True)
class Sampled:
    """One chunk picked for a question, with the label its document has in QA rows."""

    chunk: Chunk
    doc: str
    position: int  # the chunk's index among its document's usable chunks
    of: int  # how many usable chunks the document has


def leaf_chunks(chunks: Sequence[Chunk]) -> list[Chunk]:
    """Chunks no other chunk names as its parent (parent-child and hierarchical chunkers emit
    both levels; a question is asked of the smallest unit), in document order."""
    parents = {c.parent_id for c in chunks if c.parent_id}
    return sorted((c for c in chunks if c.chunk_id not in parents), key=lambda c: (c.start, c.end))


def allocate(available: Mapping[str, int], n: int, rng: random.Random) -> dict[str, int]:
    """Round-robin: how many chunks each document gives, `n` in all (fewer when the documents
    hold fewer usable chunks)."""
    order = sorted(available)
    rng.shuffle(order)
    counts: Counter[str] = Counter()
    total = 0
    while total < n:
        progressed = False
        for doc in order:
            if total >= n:
                break
            if counts[doc] < available[doc]:
                counts[doc] += 1
                total += 1
                progressed = True
        if not progressed:
            break
    return dict(counts)


def stratified_picks(size: int, k: int, rng: random.Random) -> list[int]:
    """`k` distinct indices into range(size), one drawn from each of k equal strata."""
    if k >= size:
        return list(range(size))
    bounds = [round(i * size / k) for i in range(k + 1)]
    return [rng.randrange(bounds[i], bounds[i + 1]) for i in range(k)]


def sample_chunks(by_doc: Mapping[str, Sequence[Chunk]], n: int, seed: int = 0,
                  min_chars: int = MIN_CHUNK_CHARS) -> list[Sampled]:
    """Up to `n` chunks spread over documents and positions, interleaved document by document
    (so a run cut short still covers many files)."""
    if n < 1:
        raise ValueError(f"the number of questions must be at least 1, got {n}")
    rng = random.Random(seed)
    usable = {doc: [c for c in chunks if len(c.text.strip()) >= min_chars] for doc, chunks in by_doc.items()}
    usable = {doc: chunks for doc, chunks in usable.items() if chunks}
    shares = allocate({doc: len(chunks) for doc, chunks in usable.items()}, n, rng)
    per_doc = {doc: [Sampled(usable[doc][i], doc, i, len(usable[doc]))
                     for i in sorted(stratified_picks(len(usable[doc]), k, rng))]
               for doc, k in shares.items()}
    out: list[Sampled] = []
    for round_ in range(max((len(v) for v in per_doc.values()), default=0)):
        out.extend(picks[round_] for picks in per_doc.values() if round_ < len(picks))
    return out


def spread(sampled: Sequence[Sampled]) -> dict[str, int]:
    """{document: chunks sampled from it}, most first."""
    return dict(Counter(s.doc for s in sampled).most_common())
