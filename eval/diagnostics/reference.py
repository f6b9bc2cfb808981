"""Accuracy checks: the pipeline's BM25 and dense retrieval against plain reference code.

    python -m eval.diagnostics.reference --dataset DIR [--set chunking.strategy=whole]
        [--against passages] [--variant KEY=VALUE] [--out FILE.json]

Both sides search the same chunks (the collection's), map chunks to documents by their best
score and keep the same depth, so only the retrieval implementation differs. With
`--against passages` the reference searches the corpus's passages as BEIR baselines do (title +
text, never split) whatever the preset chunks, so `--set chunking.strategy=whole` checks that a
whole-passage preset is the textbook baseline:
- bm25: rank-bm25's BM25Okapi (k1, b from the config) over the collection's tokenizer;
- dense: `SentenceTransformer.encode(..., normalize_embeddings=True)` and a numpy dot product.
The input guard is off on the pipeline side (the reference has none).
The check passes when nDCG@10 differs by at most 0.005. `--variant KEY=VALUE` checks each preset
once more with that override (e.g. embedding.backend=sentence-transformers: the fp32 embedder
beside the default int8 onnx one) against the same reference run.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal, get_args

import numpy as np

from eval.data.beir import load_beir
from eval.data.shapes import BeirDataset, Results
from eval.runs.beir_index import beir_collection, beir_documents, make_searcher
from eval.runs.preset_run import run_preset
from eval.scoring.metrics import evaluate
from rag.chunking.base import Chunk
from rag.config import PipelineConfig, load_preset, parse_set_options, with_overrides
from rag.index.tokenizer import Tokenizer

TOLERANCE = {"bm25": 0.005, "dense": 0.005}
Against = Literal["chunks", "passages"]


@dataclass(frozen=True)
class Agreement:
    preset: str
    variant: Mapping[str, object]  # overrides beyond the shared --set ones
    pipeline_ndcg10: float
    reference_ndcg10: float
    tolerance: float

    @property
    def diff(self) -> float:
        return abs(self.pipeline_ndcg10 - self.reference_ndcg10)

    @property
    def ok(self) -> bool:
        return self.diff <= self.tolerance


def _doc_results(
    chunks: Sequence[Chunk], scores: np.ndarray, qids: Sequence[str], depth: int
) -> Results:
    """Top `depth` chunks per query (ties in chunk order), each document at its best chunk."""
    results: dict[str, dict[str, float]] = {}
    for row, qid in zip(scores, qids, strict=True):
        ranking: dict[str, float] = {}
        for i in np.argsort(-row, kind="stable")[:depth]:
            doc = chunks[i].doc_id
            ranking[doc] = max(ranking.get(doc, -np.inf), float(row[i]))
        results[qid] = ranking
    return results


def rank_bm25_results(
    chunks: Sequence[Chunk], queries: Mapping[str, str], tokenize: Callable[[str], list[str]],
    k1: float, b: float, depth: int,
) -> Results:
    """rank-bm25 BM25Okapi over the chunks; chunks with no query term (score 0) are left out."""
    from rank_bm25 import BM25Okapi

    bm25 = BM25Okapi([tokenize(c.text) for c in chunks], k1=k1, b=b)
    qids = list(queries)
    scores = np.array([bm25.get_scores(tokenize(queries[q])) for q in qids])
    results = _doc_results(chunks, scores, qids, depth)
    # BM25 search only returns chunks that share a term with the query
    return {q: {d: s for d, s in r.items() if s > 0} for q, r in results.items()}


def sbert_results(
    chunks: Sequence[Chunk], queries: Mapping[str, str], model_path: str, depth: int,
    batch_size: int = 64,
) -> Results:
    """Cosine similarity with plain sentence-transformers (normalized embeddings)."""
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(model_path, device="cpu", local_files_only=True)
    docs = model.encode([c.text for c in chunks], batch_size=batch_size,
                        normalize_embeddings=True, show_progress_bar=True)
    qids = list(queries)
    vecs = model.encode([queries[q] for q in qids], normalize_embeddings=True)
    return _doc_results(chunks, vecs @ docs.T, qids, depth)


def passage_chunks(dataset: BeirDataset) -> list[Chunk]:
    """Each BEIR passage whole (title + text), as a baseline outside the workbench reads it."""
    return [Chunk(doc.doc_id, doc.doc_id, 0, len(doc.text), doc.text)
            for doc in beir_documents(dataset)]


_REFERENCES: dict[str, Results] = {}  # one reference run per process serves several checks


def reference_results(
    dataset: BeirDataset, config: PipelineConfig, against: Against = "chunks"
) -> Results:
    """The reference run for a single-retriever preset (bm25 or dense), over the collection's
    chunks or over the raw passages; a check whose reference was already run (same passages,
    retriever and its settings) reuses it, e.g. dense with the onnx and the fp32 backend."""
    (retriever,) = config.retrieval.retrievers
    reads = config.index.model_dump_json() if retriever == "bm25" else \
        config.embedding.model_path or config.embedding.model
    key = "\0".join([dataset.content_hash, against, retriever, reads, str(config.retrieval.depth),
                     "" if against == "passages" else beir_collection(dataset, config).name])
    if key not in _REFERENCES:
        _REFERENCES[key] = _reference_run(dataset, config, against)
    return _REFERENCES[key]


def _reference_run(dataset: BeirDataset, config: PipelineConfig, against: Against) -> Results:
    if against == "passages":
        chunks = passage_chunks(dataset)
    else:
        chunks = beir_collection(dataset, config).chunks()
    depth = config.retrieval.depth
    (retriever,) = config.retrieval.retrievers
    if retriever == "bm25":
        tokenizer = Tokenizer(config.index.tokenizer)
        return rank_bm25_results(chunks, dataset.queries, tokenizer, config.index.k1,
                                 config.index.b, depth)
    from rag.embed.local_models import minilm_folder

    path = config.embedding.model_path or str(minilm_folder())
    return sbert_results(chunks, dataset.queries, path, depth, config.embedding.batch_size)


def check(
    dataset: BeirDataset, preset: str, overrides: Mapping[str, object] | None = None,
    against: Against = "chunks", variant: Mapping[str, object] | None = None,
) -> Agreement:
    # the reference has no input guard: a query the guard blocks would score 0 on one side only,
    # and what the guard blocks is measured by `python -m eval guard`, not here
    config = with_overrides(load_preset(preset), {
        **(overrides or {}), **(variant or {}), "query.guard.enabled": False})
    run = run_preset(dataset, preset, make_searcher(dataset, config), ["ndcg@10"], n_resamples=10)
    reference = evaluate(dataset.qrels, reference_results(dataset, config, against), ["ndcg@10"])
    (retriever,) = config.retrieval.retrievers
    return Agreement(preset, variant or {}, run.summary.metrics["ndcg@10"],
                     reference["ndcg@10"].mean, TOLERANCE[retriever])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.diagnostics.reference", description=__doc__)
    parser.add_argument("--dataset", required=True, type=Path)
    parser.add_argument("--preset", action="append", dest="presets")
    parser.add_argument("--set", action="append", default=[], dest="overrides",
                        help="override a preset field, e.g. chunking.strategy=whole")
    parser.add_argument("--against", choices=get_args(Against), default="chunks",
                        help="reference searches the collection's chunks or the raw passages")
    parser.add_argument("--variant", action="append", default=[], dest="variants",
                        help="also check each preset with this override, e.g. "
                             "embedding.backend=sentence-transformers")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    dataset = load_beir(args.dataset)
    overrides = parse_set_options(args.overrides)
    variants = [{}, *(parse_set_options([v]) for v in args.variants)]
    results = [check(dataset, p, overrides, args.against, v)
               for p in args.presets or ["bm25", "dense"] for v in variants]
    for r in results:
        label = " ".join([r.preset, *(f"{k}={v}" for k, v in r.variant.items())])
        print(f"{label}: pipeline nDCG@10 {r.pipeline_ndcg10:.4f}, reference "
              f"{r.reference_ndcg10:.4f}, |diff| {r.diff:.4f} (tolerance {r.tolerance}) "
              f"{'OK' if r.ok else 'FAIL'}")
    if args.out:
        rows = [{**asdict(r), "diff": r.diff, "ok": r.ok} for r in results]
        report = {"dataset": dataset.name, "overrides": overrides, "against": args.against,
                  "checks": rows}
        args.out.write_text(json.dumps(report, indent=2) + "\n")
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
