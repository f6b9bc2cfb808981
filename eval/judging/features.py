"""Cheap features of a pooled passage for the learned judge: how each system ranked and scored
it, how many systems pooled it, its BM25 and dense similarity to the question, its overlap with
the reference answer, and how much of the question its heading (title or first line) holds.

Nothing here reads a label: the features are the same before and after anyone judges.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from eval.judging.sim_pool import JudgingPool, PoolItem
from rag.embed.base import Embedder
from rag.text import content_words

BM25_K1, BM25_B = 1.2, 0.75  # Robertson & Zaragoza 2009's usual values
HEADING_CHARS = 120  # a first line this short reads as the span's heading


@dataclass(frozen=True)
class Features:
    """One row per pool item, one column per name."""

    names: tuple[str, ...]
    matrix: np.ndarray  # (items, features), float64


def _heading(item: PoolItem) -> str:
    if item.title:
        return item.title
    first = item.text.strip().split("\n", 1)[0]
    return first if len(first) <= HEADING_CHARS else ""


def _share(of: Sequence[str], within: set[str]) -> float:
    wanted = set(of)
    return len(wanted & within) / len(wanted) if wanted else 0.0


def bm25_scores(pool: JudgingPool) -> np.ndarray:
    """Okapi BM25 (Robertson et al. 1994) of each item's text for its question, document
    frequencies over the whole pool; divided by the best score in the question's pool."""
    tokens = [content_words(f"{item.title} {item.text}") for item in pool.items]
    n = len(tokens)
    df: Counter[str] = Counter(t for toks in tokens for t in set(toks))
    mean_len = sum(map(len, tokens)) / n if n else 1.0
    raw = np.zeros(n)
    for i, (item, toks) in enumerate(zip(pool.items, tokens, strict=True)):
        tf = Counter(toks)
        norm = BM25_K1 * (1 - BM25_B + BM25_B * len(toks) / max(mean_len, 1e-9))
        for term in set(content_words(pool.questions[item.qid])):
            if tf[term]:
                idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
                raw[i] += idf * tf[term] * (BM25_K1 + 1) / (tf[term] + norm)
    out = np.zeros(n)
    for idx in pool.by_question.values():
        if idx:
            best = raw[list(idx)].max()
            out[list(idx)] = raw[list(idx)] / best if best > 0 else 0.0
    return out


def dense_scores(pool: JudgingPool, embedder: Embedder) -> np.ndarray:
    """Cosine of each item's text to its question (the embedder's vectors are normalized)."""
    if not pool.items:
        return np.zeros(0)
    docs = embedder.embed_documents([item.text for item in pool.items])
    qids = list(pool.questions)
    queries = {q: embedder.embed_query(pool.questions[q]) for q in qids}
    return np.array([float(np.dot(docs[i], queries[item.qid]))
                     for i, item in enumerate(pool.items)])


CONTEXT_NAMES = ("question_relevant_judged", "question_share_judged",
                 "same_source_judged_relevant", "same_source_judged_not_relevant")


def source_of(pool: JudgingPool, item: PoolItem) -> str:
    """Where a passage comes from: its document for spans, its page title for documents (a
    document-unit corpus cuts a page into passages that keep the page's title; "" when none)."""
    return item.doc if pool.unit == "span" else item.title


def context_features(pool: JudgingPool, judged: Mapping[int, int]) -> np.ndarray:
    """What the person said about the *other* passages of each item's question: how many were
    judged relevant, what share was judged, and whether another passage from the same source
    was judged relevant, and not relevant. A question whose answer is already found holds few
    more, but they sit beside it: relevant text clusters in a source (the cluster hypothesis;
    judge7, docs/judging.md). The item's own label never enters its row."""
    out = np.zeros((len(pool), len(CONTEXT_NAMES)))
    for idx in pool.by_question.values():
        rel = sum(judged.get(i, 0) for i in idx)
        seen = sum(i in judged for i in idx)
        sources = [source_of(pool, pool.items[i]) for i in idx]
        marked: tuple[Counter[str], Counter[str]] = (Counter(), Counter())
        for i, src in zip(idx, sources, strict=True):
            if i in judged and src:
                marked[0 if judged[i] else 1][src] += 1
        for i, src in zip(idx, sources, strict=True):
            own_rel, own_seen = judged.get(i, 0), int(i in judged)
            out[i, 0] = rel - own_rel
            out[i, 1] = (seen - own_seen) / max(len(idx) - 1, 1)
            if src:
                out[i, 2] = float(marked[0][src] - (own_seen and own_rel) > 0)
                out[i, 3] = float(marked[1][src] - (own_seen and not own_rel) > 0)
    return out


def item_features(pool: JudgingPool, embedder: Embedder | None = None) -> Features:
    """The feature matrix of every pool item (dense similarity only with an embedder)."""
    systems = pool.systems
    names = [*(f"reciprocal_rank:{s}" for s in systems), *(f"score:{s}" for s in systems),
             "systems_share", "best_reciprocal_rank", "bm25", "answer_overlap", "heading_overlap"]
    lows: dict[tuple[str, str], tuple[float, float]] = {}
    for s in systems:
        for qid, ranked in pool.runs[s].items():
            values = [pool.items[i].scores[s] for i in ranked if s in pool.items[i].scores]
            if values:
                lows[(s, qid)] = (min(values), max(values))
    bm25 = bm25_scores(pool)
    rows = []
    for i, item in enumerate(pool.items):
        rr = [1.0 / item.ranks[s] if s in item.ranks else 0.0 for s in systems]
        scaled = []
        for s in systems:
            if s not in item.scores:
                scaled.append(0.0)
                continue
            low, high = lows[(s, item.qid)]
            scaled.append((item.scores[s] - low) / (high - low) if high > low else 1.0)
        text_words = set(content_words(f"{item.title} {item.text}"))
        rows.append([*rr, *scaled, len(item.ranks) / max(len(systems), 1), max(rr, default=0.0),
                     bm25[i],
                     _share(content_words(pool.answers.get(item.qid, "")), text_words),
                     _share(content_words(pool.questions[item.qid]),
                            set(content_words(_heading(item))))])
    matrix = np.array(rows, dtype=np.float64).reshape(len(rows), len(names))
    if embedder is not None:
        names.append("dense")
        matrix = np.column_stack([matrix, dense_scores(pool, embedder)])
    return Features(tuple(names), matrix)


PAIR_NAMES = ("pair_cosine", "pair_maxsim_mean", "pair_maxsim_min", "pair_maxsim_max")


def with_pair_similarities(pool: JudgingPool, features: Features, threads: int = 1) -> Features:
    """`features` plus the frozen MiniLM cross-encoder's four similarities of each passage to
    its question, read jointly (eval.judging.cross_judge: cosine of their mean vectors and
    MaxSim mean, min, max). About 4 pairs a second on one shared core; cached in memory."""
    from eval.judging.cross_judge import pool_vectors

    sims = pool_vectors(pool, threads)[:, -len(PAIR_NAMES):]
    return Features((*features.names, *PAIR_NAMES), np.column_stack([features.matrix, sims]))
