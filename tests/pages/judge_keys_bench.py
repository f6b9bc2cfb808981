"""How long the Judge page takes to answer a key: the page's script run after a Y / N press,
timed through Streamlit's AppTest (server side; the browser adds its round trip and drawing).
Every question's pool is built first (depth 10, the eight default systems), so the timed runs
are what a person judging a stored set waits for. A reference order (default: pool order, which
fits no judge) is timed in the same process on a copy of the set, keys interleaved with the
timed order's, and the report gives the ratio of the medians: the shared machine's load moves
both alike.

    python tests/pages/judge_keys_bench.py --collection samples --qa datasets/qa_samples.jsonl \\
        --keys 40 --out benchmarks/results/judge_keys_samples.json

It lives beside the page tests, not in benchmarks/: it drives a page, and benchmarks/ may not
import streamlit or pages (tests/test_layers.py).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script from anywhere

from streamlit.testing.v1 import AppTest

from eval.judging.pool import DEFAULT_DEPTH, DEFAULT_SYSTEMS, pool_question, pool_searchers
from eval.judging.store import open_judging
from eval.testsets.store import read_rows, save_set
from pages.ui.state import APP_COLLECTION
from rag.index import open_collection
from rag.paths import PROJECT_ROOT

PAGE = str(PROJECT_ROOT / "pages" / "judge.py")


def _summary(seconds: list[float]) -> dict[str, float]:
    return {"median": round(1000 * statistics.median(seconds), 1),
            "p90": round(1000 * sorted(seconds)[int(0.9 * (len(seconds) - 1))], 1),
            "max": round(1000 * max(seconds), 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--collection", required=True)
    parser.add_argument("--qa", required=True, type=Path)
    parser.add_argument("--set", default=f"keys-bench-{int(time.time())}",
                        help="the test set name it saves (a fresh one: no labels yet)")
    parser.add_argument("--keys", type=int, default=40)
    parser.add_argument("--order", default="judge_uncertainty",
                        help="the judging order (\"pool order\", or a strategy name)")
    parser.add_argument("--reference", default="pool order",
                        help="the order timed alongside, in the same process, for the ratio")
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.qa.read_text(encoding="utf-8").splitlines()
            if line.strip()]
    searchers = pool_searchers(open_collection(args.collection), DEFAULT_SYSTEMS)
    orders = {"timed": (args.set, args.order), "reference": (f"{args.set}-ref", args.reference)}
    pages = {}
    for name, (set_name, order) in orders.items():
        save_set(args.collection, set_name, rows)
        store = open_judging(args.collection, set_name)
        store.add_questions(read_rows(args.collection, set_name))
        for q in store.questions():
            if not store.has_pool(q.qid):
                store.add_pool(q.qid, pool_question(q.question, searchers,
                                                    DEFAULT_DEPTH).passages)
        at = AppTest.from_file(PAGE, default_timeout=300)
        at.session_state[APP_COLLECTION] = args.collection
        at.session_state["judge_order"] = order
        at.run()
        at.selectbox(key="judge_set").set_value(set_name).run()
        pages[name] = at
    seconds: dict[str, list[float]] = {name: [] for name in orders}
    for i in range(args.keys):
        for name, at in pages.items():
            started = time.perf_counter()
            at.button(key="judge_relevant" if i % 3 == 0 else "judge_not_relevant").click().run()
            seconds[name].append(time.perf_counter() - started)
            if at.exception:
                raise SystemExit(str(at.exception))
    store = open_judging(args.collection, args.set)
    pooled = [len(store.pool(q.qid)) for q in store.questions()]
    report = {
        "collection": args.collection, "qa": str(args.qa), "questions": len(pooled),
        "depth": DEFAULT_DEPTH, "systems": list(DEFAULT_SYSTEMS),
        "pool_passages": {"total": sum(pooled), "mean": round(statistics.mean(pooled), 1)},
        "keys": args.keys, "order": args.order, "reference_order": args.reference,
        "key_run_ms": _summary(seconds["timed"]),
        "reference_key_run_ms": _summary(seconds["reference"]),
        "median_ratio_to_reference": round(statistics.median(seconds["timed"])
                                           / statistics.median(seconds["reference"]), 2),
        "max_ratio_to_reference": round(max(seconds["timed"]) / max(seconds["reference"]), 2),
        "timed": "AppTest script run per key press (server side)",
        "load_average_1m": round(os.getloadavg()[0], 1),  # 2 cores shared: timings inflate
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
