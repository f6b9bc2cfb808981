"""One scoring path (issue 36, item 6): `eval validate-testset` (a folder of documents) and
`eval run --collection` (the same files ingested) give one figure per system on one set.

    python -m benchmarks.scoring_paths --docs DIR --system echomind --system bm25 \
        --out benchmarks/results/scoring_paths_faqdev.json

Ingests DIR into a fresh collection, mines a set from it, then scores the set both ways through
the real commands (validate-testset needs two or more systems) and writes both nDCG@10 figures.
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
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{' '.join(args[:3])} failed:\n{done.stderr[-3000:]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=Path, required=True)
    parser.add_argument("--system", action="append", required=True, help="two or more presets")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    started = time.perf_counter()
    result: dict[str, Any] = {"command": "python -m benchmarks.scoring_paths " + " ".join(sys.argv[1:]),
                              "docs": str(args.docs), "systems": {}}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        name = f"paths-{int(time.time())}"
        _run("-m", "rag", "ingest", str(args.docs), "--collection", name, "--preset", args.system[0])
        qa = work / "mined.jsonl"
        _run("-m", "eval", "questions", "--collection", name, "--method", "mined", "--out", str(qa))
        val_out = work / "validate.json"
        _run("-m", "eval", "validate-testset", "--corpus", str(args.docs), "--human", str(qa),
             *[a for s in args.system for a in ("--system", s)], "--resamples", "20",
             "--out", str(val_out))
        validated = json.loads(val_out.read_text())["sets"]["human"]["ndcg@10"]
        for system in args.system:
            run_out = work / f"{system}-run.json"
            _run("-m", "eval", "run", "--collection", name, "--qa", str(qa), "--preset", system,
                 "--metrics", "ndcg@10", "--out", str(run_out), "--no-store", "--resamples", "100")
            from_run = _ndcg(json.loads(run_out.read_text()))
            result["systems"][system] = {"eval_run_collection": from_run,
                                         "validate_testset": validated[system],
                                         "difference": round(abs(from_run - validated[system]), 6)}
            print(system, result["systems"][system], flush=True)
        result["questions"] = sum(1 for _ in qa.open())
    result["seconds"] = round(time.perf_counter() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


def _ndcg(report: dict[str, Any]) -> float:
    """The one preset's mean nDCG@10 from an `eval run` report (its shape read defensively)."""
    runs = report.get("runs") or [report]
    run = runs[0]
    summary = run.get("summary", run)
    value = summary["metrics"]["ndcg@10"]
    return float(value["mean"] if isinstance(value, dict) else value)


if __name__ == "__main__":
    raise SystemExit(main())
