"""`python -m benchmarks.store_hnsw`: how Qdrant Edge's index parameters were chosen.

On real MiniLM embeddings of the Debian passages (cached in the data folder's embedding cache):
- recall@10 of HNSW against exact search, unfiltered and under the privacy filter (15 % of the
  points private to one of five users; the query's user sees public points and their own), for a
  few (m, ef_construct, ef) settings;
- p50 latency of exact search against HNSW per collection size, to place the indexing threshold
  (below it a segment keeps no graph and every search is exact);
- nDCG@10 on the Debian BEIR set with the graph forced on, against exact search, dense and
  hybrid (RRF k=60 of dense and the Qdrant BM25 sparse vector).

    nice -n 10 python -m benchmarks.store_hnsw --passages P/corpus.jsonl --queries P/queries.jsonl \
        --beir datasets/build/beir_debian --n 10000 --out benchmarks/results/edge_hnsw.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from eval.data.beir import load_beir, load_corpus, load_queries
from eval.scoring.metrics import evaluate
from rag.embed import EmbeddingConfig, get_embedder
from rag.index.edge_client import EdgeClient, EdgeParams
from rag.index.filters import build_filter
from rag.index.points import DENSE, SPARSE, Point, SparseQuery
from rag.index.sparse.base import BM25Params
from rag.index.sparse.vectors import document_vector, query_vector
from rag.index.tokenizer import Tokenizer
from rag.settings.index import TokenizerConfig
from rag.settings.retrieval import FilterConfig

USERS = 5
PRIVATE_SHARE = 0.15
SETTINGS = [(16, 100, 64), (16, 100, 128), (16, 200, 128), (32, 200, 128), (16, 100, 256)]
NEVER = 10**9  # KB: an indexing threshold no segment reaches (exact search only)
FORCE = 1  # KB: every segment gets its graph, and every search uses it (no full-scan fallback)


def _payload(i: int, rng: np.random.Generator) -> dict[str, object]:
    private = rng.random() < PRIVATE_SHARE
    return {"chunk_id": f"p{i}", "doc_id": f"p{i}", "source": f"p{i}", "level": "chunk",
            "doc_type": "text", "tags": [], "created_at": float(i),
            "owner": f"u{i % USERS}" if private else None,
            "visibility": "private" if private else "public"}  # fmt: skip


def _points(vectors: np.ndarray, sparse: Sequence[tuple[tuple[int, ...], tuple[float, ...]]],
            seed: int = 3) -> list[Point]:  # fmt: skip
    rng = np.random.default_rng(seed)
    return [Point(f"p{i}", v, s[0], s[1], _payload(i, rng))
            for i, (v, s) in enumerate(zip(vectors, sparse, strict=True))]  # fmt: skip


def _build(root: Path, points: list[Point], dim: int, params: EdgeParams) -> tuple[EdgeClient, float]:
    shutil.rmtree(root, ignore_errors=True)
    client = EdgeClient(root, params)
    client.create("bench", dim)
    for start in range(0, len(points), 1024):
        client.upsert("bench", points[start : start + 1024])
    started = time.perf_counter()
    client.optimize("bench")
    return client, time.perf_counter() - started


def _ids(client: EdgeClient, vector: np.ndarray, k: int, qfilter: object, exact: bool) -> list[str]:
    return [h.chunk_id for h in client.query("bench", vector, DENSE, k, qfilter, exact)]  # type: ignore[arg-type]


def _p50(client: EdgeClient, queries: np.ndarray, qfilter: object, exact: bool) -> float:
    times = []
    for q in queries:
        started = time.perf_counter()
        _ids(client, q, 10, qfilter, exact)
        times.append((time.perf_counter() - started) * 1000)
    return round(float(np.median(times)), 3)


BACKEND = {"name": "onnx"}  # --embedding-backend (hashing: the latency-by-size run only)


def _embed(texts: list[str]) -> np.ndarray:
    embedder = get_embedder(EmbeddingConfig(backend=BACKEND["name"]))  # type: ignore[arg-type]
    embedder.show_progress = False
    return np.asarray(embedder.embed_documents(texts), dtype=np.float32)


def _sparse(texts: list[str]) -> list[tuple[tuple[int, ...], tuple[float, ...]]]:
    tokenizer = Tokenizer(TokenizerConfig())
    tokens = tokenizer.many(texts)
    avgdl = float(np.mean([len(t) for t in tokens]) or 1.0)
    return [document_vector(t, avgdl, BM25Params(1.5, 0.75)) for t in tokens]


def recall_and_latency(passages: Path, queries: Path, n: int, work: Path,
                       sizes: Sequence[int] = (), recall: bool = True,
                       settings: Sequence[tuple[int, int, int]] = SETTINGS) -> dict[str, object]:  # fmt: skip
    corpus = list(load_corpus(passages).values())[:n]
    texts = [f"{d['title']}\n{d['text']}".strip() for d in corpus]
    qtexts = list(load_queries(queries).values())[:200]
    vectors, qvectors = _embed(texts), _embed(qtexts)
    points = _points(vectors, _sparse(texts))
    privacy = build_filter(FilterConfig(owner="u1"))
    rows: list[dict[str, object]] = []
    for m, ef_construct, ef in settings if recall else ():
        params = EdgeParams(m=m, ef_construct=ef_construct, ef_search=ef, indexing_threshold_kb=FORCE,
                            full_scan_threshold_kb=FORCE)
        client, build_s = _build(work / "hnsw", points, vectors.shape[1], params)
        row: dict[str, object] = {"m": m, "ef_construct": ef_construct, "ef": ef,
                                  "build_seconds": round(build_s, 2)}  # fmt: skip
        for label, qfilter in (("unfiltered", None), ("privacy", privacy)):
            hits = [len(set(_ids(client, q, 10, qfilter, False)) & set(_ids(client, q, 10, qfilter, True)))
                    for q in qvectors]  # fmt: skip
            row[f"recall@10_{label}"] = round(sum(hits) / (10 * len(hits)), 4)
            row[f"hnsw_p50_ms_{label}"] = _p50(client, qvectors, qfilter, exact=False)
            row[f"exact_p50_ms_{label}"] = _p50(client, qvectors, qfilter, exact=True)
        client.close()
        rows.append(row)
    sizes = []
    for size in sorted({s for s in (*(sizes or (1000, 2500, 5000, 10000, 20000)), n) if s <= n}):
        params = EdgeParams(indexing_threshold_kb=FORCE, full_scan_threshold_kb=FORCE)
        client, _ = _build(work / "size", points[:size], vectors.shape[1], params)
        sizes.append({"points": size, "vector_kb": size * vectors.shape[1] * 4 // 1024,
                      "exact_p50_ms": _p50(client, qvectors, privacy, exact=True),
                      "hnsw_p50_ms": _p50(client, qvectors, privacy, exact=False),
                      "exact_unfiltered_p50_ms": _p50(client, qvectors, None, exact=True),
                      "hnsw_unfiltered_p50_ms": _p50(client, qvectors, None, exact=False)})  # fmt: skip
        client.close()
    return {"passages": str(passages), "points": n, "queries": len(qtexts), "settings": rows,
            "latency_by_size": sizes}  # fmt: skip


def _rrf(lists: Sequence[list[str]], k: int = 60) -> dict[str, float]:
    fused: dict[str, float] = {}
    for ranking in lists:
        for rank, doc in enumerate(ranking, start=1):
            fused[doc] = fused.get(doc, 0.0) + 1.0 / (k + rank)
    return fused


def beir_ndcg(beir: Path, work: Path) -> dict[str, object]:
    data = load_beir(beir)
    ids = list(data.corpus)
    texts = [f"{data.corpus[d]['title']}\n{data.corpus[d]['text']}".strip() for d in ids]
    qids = list(data.queries)
    vectors, qvectors = _embed(texts), _embed([data.queries[q] for q in qids])
    sparse = _sparse(texts)
    points = [Point(d, v, s[0], s[1], {"chunk_id": d}) for d, v, s in zip(ids, vectors, sparse, strict=True)]
    forced = EdgeParams(indexing_threshold_kb=FORCE, full_scan_threshold_kb=FORCE)
    client, _ = _build(work / "beir", points, vectors.shape[1], forced)
    tokenizer = Tokenizer(TokenizerConfig())
    out: dict[str, object] = {"dataset": str(beir), "passages": len(ids), "queries": len(qids)}
    results: dict[str, dict[str, dict[str, float]]] = {}
    for mode in ("exact", "hnsw"):
        dense_run, hybrid_run = {}, {}
        for qid, qv in zip(qids, qvectors, strict=True):
            dense = client.query("bench", qv, DENSE, 100, None, exact=mode == "exact")
            indices, values = query_vector(tokenizer(data.queries[qid]))
            sparse_query = SparseQuery(tuple(indices), tuple(values))
            bm25 = client.query("bench", sparse_query, SPARSE, 100, None)
            dense_run[qid] = {h.chunk_id: h.score for h in dense}
            hybrid_run[qid] = _rrf([[h.chunk_id for h in dense], [h.chunk_id for h in bm25]])
        results[f"dense_{mode}"], results[f"hybrid_{mode}"] = dense_run, hybrid_run
    client.close()
    for name, run in results.items():
        scores = evaluate(data.qrels, run, ["ndcg@10"])["ndcg@10"]
        out[f"ndcg@10_{name}"] = round(float(np.mean(list(scores.values.values()))), 5)
    for kind in ("dense", "hybrid"):
        out[f"ndcg@10_{kind}_delta"] = round(
            float(out[f"ndcg@10_{kind}_hnsw"]) - float(out[f"ndcg@10_{kind}_exact"]), 5)  # type: ignore[arg-type]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--passages", type=Path, required=True)
    parser.add_argument("--queries", type=Path, required=True)
    parser.add_argument("--beir", type=Path, required=True)
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--embedding-backend", default="onnx", choices=["onnx", "hashing"])
    parser.add_argument("--sizes", default="", help="sizes of the exact-vs-graph latency run")
    parser.add_argument("--settings", default="",
                        help="m/ef_construct/ef triples to measure recall for, e.g. 16/100/128,16/100/256")
    parser.add_argument("--latency-only", action="store_true",
                        help="only exact vs graph latency by size (no recall, no BEIR)")
    args = parser.parse_args(argv)
    BACKEND["name"] = args.embedding_backend
    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    settings = [(int(m), int(c), int(e)) for m, c, e in
                (t.split("/") for t in args.settings.split(",") if t.strip())] or SETTINGS
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="edge-hnsw-") as tmp:
        report = {
            "command": "python -m benchmarks.store_hnsw " + " ".join(argv or sys.argv[1:]),
            "engine": "qdrant-edge-py 0.9.0",
            "embedding_backend": args.embedding_backend,
            "recall": recall_and_latency(args.passages, args.queries, args.n, Path(tmp), sizes,
                                         recall=not args.latency_only, settings=settings),
            "beir": None if args.latency_only else beir_ndcg(args.beir, Path(tmp)),
            "seconds": round(time.perf_counter() - started, 1),
            "load_average": os.getloadavg(),
            "cpu_count": os.cpu_count(),
        }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
