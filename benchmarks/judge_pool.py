"""What the Judge page's pooling costs and yields: open one retrieval-mode searcher per pooled
system over a collection (derived indexes built on first use), then pool every question of a QA
file at a depth; writes the seconds and the pool sizes (passages a person judges per question).

    python -m benchmarks.judge_pool --collection NAME --qa datasets/qa_samples.jsonl \\
        --out benchmarks/results/judge_pool_samples.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from eval.data.qa import load_qa_file
from eval.judging.pool import DEFAULT_DEPTH, DEFAULT_SYSTEMS, pool_question, pool_searchers
from rag.index import open_collection


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--collection", required=True)
    parser.add_argument("--qa", required=True, type=Path)
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH)
    parser.add_argument("--systems", nargs="+", default=list(DEFAULT_SYSTEMS))
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args(argv)
    collection = open_collection(args.collection)
    started = time.perf_counter()
    searchers = pool_searchers(collection, args.systems)
    opened = time.perf_counter() - started
    seconds, sizes, failed = [], [], {}
    credited: dict[str, int] = {s: 0 for s in args.systems}
    for item in load_qa_file(args.qa).items:
        started = time.perf_counter()
        pool = pool_question(item.question, searchers, args.depth)
        seconds.append(time.perf_counter() - started)
        sizes.append(len(pool.passages))
        failed.update(pool.failed)
        for passage in pool.passages:
            for system in passage.systems:
                credited[system] += 1
    report = {
        "collection": args.collection, "documents": len(collection.manifest.documents),
        "qa": str(args.qa), "questions": len(sizes), "systems": args.systems,
        "depth": args.depth, "open_searchers_s": round(opened, 2),
        "pool_s": {"first": round(seconds[0], 2), "median": round(statistics.median(seconds), 2),
                   "max": round(max(seconds), 2)},
        "pool_passages": {"mean": round(statistics.mean(sizes), 2), "min": min(sizes),
                          "max": max(sizes), "upper_bound": args.depth * len(args.systems)},
        "passages_retrieved_by_system": credited, "failed": failed,
        "load_average_1m": round(os.getloadavg()[0], 1),  # 2 cores shared: timings inflate
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
