"""Each system's ranked hits on every question of a fully labelled set, and the full labels of
the resulting pool: what `python -m eval simulate-judging` judges. The systems run through the
one pipeline runner in eval's retrieval mode over the set's own collection (one per index
settings, as Evaluate builds it), and each system's hits are kept on disk per (set, preset,
depth), so every strategy, budget and seed reuses one run of the eight systems.

Document sets (BEIR qrels) pool documents (a system's ranking is its chunks' first documents,
MaxP); span sets (QA files, sets stored with a collection) pool spans (eval.judging.sim_pool).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from eval.data.evalsets import EvalSet
from eval.judging.sim_pool import JudgingPool, RankedHit, build_pool
from eval.judging.simulate import Truth
from eval.runs.beir_index import beir_collection, eval_config, retrieval_searcher
from eval.runs.preset_run import unless_refused
from rag.config import load_preset
from rag.paths import cache_dir

TEXT_CHARS = 2000  # of a pooled document's text kept for its features


def _cache_file(evalset: EvalSet, system: str, depth: int) -> Path:
    config = load_preset(system)
    digest = hashlib.sha256("\0".join([
        evalset.dataset.content_hash, json.dumps(sorted(evalset.dataset.queries.items())),
        config.model_dump_json(), str(depth), evalset.unit]).encode()).hexdigest()[:16]
    return cache_dir("judging_sim") / f"{evalset.dataset.name[:40]}-{system}-{digest}.json"


def system_hits(evalset: EvalSet, system: str, depth: int,
                progress: Callable[[str], None] | None = None) -> dict[str, list[RankedHit]]:
    """{qid: the system's first `depth` units (documents or chunks), best first}, from disk
    when this set and preset ran before."""
    path = _cache_file(evalset, system, depth)
    if path.is_file():
        raw = json.loads(path.read_text(encoding="utf-8"))
        return {q: [RankedHit(**h) for h in hits] for q, hits in raw.items()}
    if progress is not None:
        progress(system)
    config = load_preset(system)
    collection = beir_collection(evalset.dataset, config, progress=False)
    search = retrieval_searcher(eval_config(config, evalset.dataset), collection)
    corpus = evalset.dataset.corpus
    out: dict[str, list[RankedHit]] = {}
    for qid, question in evalset.dataset.queries.items():
        hits: list[RankedHit] = []
        seen: set[str] = set()
        for c in unless_refused(search, question):
            if len(hits) >= depth:
                break
            doc = c.chunk.doc_id
            if evalset.unit == "document":
                if doc in seen:
                    continue  # MaxP: a document's best chunk ranks it
                seen.add(doc)
                entry = corpus.get(doc, {})
                hits.append(RankedHit(doc, 0, 0, str(entry.get("text", ""))[:TEXT_CHARS],
                                      float(c.score), str(entry.get("title", ""))))
            else:
                hits.append(RankedHit(doc, c.chunk.start, c.chunk.end, c.chunk.text,
                                      float(c.score)))
        out[qid] = hits
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({q: [h.__dict__ for h in hs] for q, hs in out.items()}),
                    encoding="utf-8")
    return out


def labelled_pool(evalset: EvalSet, systems: Sequence[str], depth: int,
                  answers: Mapping[str, str] | None = None,
                  progress: Callable[[str], None] | None = None) -> tuple[JudgingPool, Truth]:
    """The depth pool of every labelled question over `systems`, and its full labels."""
    unit = "document" if evalset.unit == "document" else "span"
    if unit == "document":
        labelled = {q for q, rel in evalset.dataset.qrels.items() if any(v > 0 for v in rel.values())}
    else:
        labelled = {q for q, spans in evalset.spans.items() if spans}
    questions = {q: t for q, t in evalset.dataset.queries.items() if q in labelled}
    hits = {s: system_hits(evalset, s, depth, progress) for s in systems}
    pool = build_pool(questions, hits, depth, unit, answers)
    labels = np.zeros(len(pool))
    outside: dict[str, int] = {}
    if unit == "document":
        for i, item in enumerate(pool.items):
            labels[i] = float(evalset.dataset.qrels[item.qid].get(item.doc, 0) > 0)
        for qid in questions:
            found = {pool.items[i].doc for i in pool.by_question[qid]}
            outside[qid] = sum(1 for d, v in evalset.dataset.qrels[qid].items()
                               if v > 0 and d not in found)
    else:
        for i, item in enumerate(pool.items):
            labels[i] = float(any(s.doc == item.doc and s.start < item.end and item.start < s.end
                                  for s in evalset.spans[item.qid]))
        for qid in questions:
            mine = [pool.items[i] for i in pool.by_question[qid]]
            outside[qid] = sum(1 for s in evalset.spans[qid]
                               if not any(p.doc == s.doc and p.start < s.end and s.start < p.end
                                          for p in mine))
    return pool, Truth(labels, outside, tuple(questions))

