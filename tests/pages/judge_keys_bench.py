"""How long the Judge page takes to answer a key: the page's script run after a Y / N press,
timed through Streamlit's AppTest (server side; the browser adds its round trip and drawing).
Every question's pool is built first (depth 10, the eight default systems), so the timed runs
are what a person judging a stored set waits for.

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--collection", required=True)
    parser.add_argument("--qa", required=True, type=Path)
    parser.add_argument("--set", default="keys-bench", help="the test set name it saves")
    parser.add_argument("--keys", type=int, default=40)
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.qa.read_text(encoding="utf-8").splitlines()
            if line.strip()]
    save_set(args.collection, args.set, rows)
    store = open_judging(args.collection, args.set)
    store.add_questions(read_rows(args.collection, args.set))
    searchers = pool_searchers(open_collection(args.collection), DEFAULT_SYSTEMS)
    for q in store.questions():
        if not store.has_pool(q.qid):
            store.add_pool(q.qid, pool_question(q.question, searchers, DEFAULT_DEPTH).passages)
    at = AppTest.from_file(PAGE, default_timeout=300)
    at.session_state[APP_COLLECTION] = args.collection
    at.run()
    at.selectbox(key="judge_set").set_value(args.set).run()
    seconds = []
    for i in range(args.keys):
        started = time.perf_counter()
        at.button(key="judge_relevant" if i % 3 == 0 else "judge_not_relevant").click().run()
        seconds.append(time.perf_counter() - started)
        if at.exception:
            raise SystemExit(str(at.exception))
    pooled = [len(store.pool(q.qid)) for q in store.questions()]
    report = {
        "collection": args.collection, "qa": str(args.qa), "questions": len(pooled),
        "depth": DEFAULT_DEPTH, "systems": list(DEFAULT_SYSTEMS),
        "pool_passages": {"total": sum(pooled), "mean": round(statistics.mean(pooled), 1)},
        "keys": args.keys,
        "key_run_ms": {"median": round(1000 * statistics.median(seconds), 1),
                       "p90": round(1000 * sorted(seconds)[int(0.9 * (len(seconds) - 1))], 1),
                       "max": round(1000 * max(seconds), 1)},
        "timed": "AppTest script run per key press (server side)",
        "load_average_1m": round(os.getloadavg()[0], 1),  # 2 cores shared: timings inflate
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
