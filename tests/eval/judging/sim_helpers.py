"""A synthetic fully labelled pool for the judging-simulation tests: systems of known quality
over questions whose relevant passages are known."""

from __future__ import annotations

import numpy as np

from eval.judging.sim_pool import JudgingPool, RankedHit, build_pool
from eval.judging.simulate import Truth


def synthetic(n_questions: int = 30, systems: int = 4, depth: int = 10, seed: int = 0,
              ) -> tuple[JudgingPool, Truth]:
    """System k puts each relevant document in its top `depth` with chance 0.9 - 0.2 k, so
    their order is known: s0 > s1 > s2 > s3."""
    rng = np.random.default_rng(seed)
    questions = {f"q{i}": f"question {i} about topic{i}" for i in range(n_questions)}
    hits: dict[str, dict[str, list[RankedHit]]] = {f"s{k}": {} for k in range(systems)}
    relevant: dict[str, set[str]] = {}
    for qid in questions:
        rel = {f"{qid}-rel{j}" for j in range(3)}
        relevant[qid] = rel
        for k in range(systems):
            docs = [d for d in sorted(rel) if rng.random() < 0.9 - 0.2 * k]
            docs += [f"{qid}-non{j}" for j in rng.choice(30, depth, replace=False)]
            order = list(rng.permutation(len(docs))) if k else list(range(len(docs)))
            ranked = [docs[i] for i in order][:depth]
            hits[f"s{k}"][qid] = [
                RankedHit(d, 0, 10, f"topic{qid[1:]} relevant text" if d in rel else "other "
                          "words here", 1.0 - r / depth) for r, d in enumerate(ranked)]
    pool = build_pool(questions, hits, depth)
    labels = np.array([int(item.key in relevant[item.qid]) for item in pool.items])
    found = {qid: {item.key for item in pool.items if item.qid == qid} for qid in questions}
    outside = {qid: len(relevant[qid] - found[qid]) for qid in questions}
    return pool, Truth(labels, outside, tuple(questions))
