"""One scoring path (issue 36, item 6): `eval validate-testset` (a folder of documents) and
`eval run --collection` (the same files ingested) give one figure per system on one set.

    python -m benchmarks.scoring_paths --docs DIR --system echomind --system bm25 \
        --out benchmarks/results/scoring_paths_faqdev.json

Ingests DIR into a fresh collection with each system's preset, mines a set from it, then scores
the set both ways through the real commands and writes both nDCG@10 figures per system.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _run(*args: str) -> None:
    subprocess.run([sys.executable, *args], check=True, capture_output=True, text=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=Path, required=True)
    parser.add_argument("--system", action="append", required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    started = time.perf_counter()
    result: dict[str, Any] = {"command": "python -m benchmarks.scoring_paths " + " ".join(sys.argv[1:]),
                              "systems": {}}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for system in args.system:
            name = f"paths-{system}-{int(time.time())}"
            _run("-m", "rag", "ingest", str(args.docs), "--collection", name, "--preset", system)
            qa = work / f"{system}.jsonl"
            _run("-m", "eval", "questions", "--collection", name, "--method", "mined", "--out", str(qa))
            run_out, val_out = work / f"{system}-run.json", work / f"{system}-val.json"
            _run("-m", "eval", "run", "--collection", name, "--qa", str(qa), "--preset", system,
                 "--metrics", "ndcg@10", "--out", str(run_out), "--no-store", "--resamples", "100")
            _run("-m", "eval", "validate-testset", "--corpus", str(args.docs), "--human", str(qa),
                 "--system", system, "--resamples", "20", "--out", str(val_out))
            run = json.loads(run_out.read_text())
            val = json.loads(val_out.read_text())
            from_run = _ndcg(run)
            from_validate = val["sets"]["human"]["ndcg@10"][system]
            result["systems"][system] = {"questions": sum(1 for _ in qa.open()),
                                         "eval_run_collection": from_run,
                                         "validate_testset": from_validate,
                                         "difference": round(abs(from_run - from_validate), 6)}
            print(system, result["systems"][system], flush=True)
    result["seconds"] = round(time.perf_counter() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


def _ndcg(report: dict[str, Any]) -> float:
    """The one preset's mean nDCG@10 from an `eval run` report."""
    (run,) = report["runs"]
    return float(run["metrics"]["ndcg@10"]["mean"])


if __name__ == "__main__":
    raise SystemExit(main())
