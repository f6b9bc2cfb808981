"""Trials per minute of `eval tune --storage sqlite:///… --workers N` with 1 and 2 workers.

    PYTHONPATH=. python benchmarks/tune_workers.py --rounds 2 --trials 40 --folds 3 \
        --out benchmarks/results/tune_workers.json

Each round runs the same cross-validated tune (hybrid's fusion space on datasets/beir_sample,
presets embedding with the hashing backend: the space only re-fuses cached lists, so no model
runs inside a trial) once with 1 and once with 2 local workers, each on a fresh SQLite study, in
alternating order. Trials per minute are counted from Optuna's own trial timestamps: finished
trials of every search (K folds + all queries) over the time from the first trial's start to the
last one's end, so process start-up and the one-off candidate search are left out. Which
process ran each trial is read from the trial's `process` attribute.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import TrialState

from rag.config import PRESET_OVERRIDES_ENV
from rag.paths import PROJECT_ROOT

DATASET = PROJECT_ROOT / "datasets" / "beir_sample"


def one_tune(workers: int, trials: int, folds: int, data: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="tune-workers-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'study.db'}"
        env = {**os.environ, PRESET_OVERRIDES_ENV: "{embedding.backend: hashing}",
               "RAG_WORKBENCH_DATA": str(data)}
        command = [sys.executable, "-m", "eval", "tune", "--dataset", str(DATASET), "--preset",
                   "hybrid", "--folds", str(folds), "--trials", str(trials), "--resamples", "200",
                   "--storage", url, "--workers", str(workers), "--no-store", "--out", tmp]
        started = time.perf_counter()
        subprocess.run(command, cwd=PROJECT_ROOT, env=env, check=True, capture_output=True)
        wall = time.perf_counter() - started
        done = [t for s in optuna.get_all_study_summaries(url)
                for t in optuna.load_study(study_name=s.study_name, storage=url).trials
                if t.state == TrialState.COMPLETE]
    first = min(t.datetime_start for t in done if t.datetime_start)
    last = max(t.datetime_complete for t in done if t.datetime_complete)
    span = (last - first).total_seconds()
    by_process = Counter(str(t.user_attrs.get("process")) for t in done)
    return {"workers": workers, "trials": len(done), "trial_span_s": round(span, 2),
            "trials_per_minute": round(len(done) / span * 60, 1), "command_wall_s": round(wall, 1),
            "trials_by_process": sorted(by_process.values(), reverse=True)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--trials", type=int, default=40, help="trials per search")
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    runs = []
    with tempfile.TemporaryDirectory(prefix="tune-workers-data-") as data:
        one_tune(1, 2, 2, Path(data))  # index the sample and cache its lists once, untimed
        for r in range(args.rounds):
            order = (1, 2) if r % 2 == 0 else (2, 1)
            for workers in order:
                result = one_tune(workers, args.trials, args.folds, Path(data))
                result.update(round=r, load_avg_1m=round(os.getloadavg()[0], 2))
                runs.append(result)
                print(json.dumps(result))
    median = {w: statistics.median(x["trials_per_minute"] for x in runs if x["workers"] == w)
              for w in (1, 2)}
    report = {
        "command": " ".join(["PYTHONPATH=. python", *sys.argv]),
        "dataset": str(DATASET.relative_to(PROJECT_ROOT)), "preset": "hybrid (hashing embedding)",
        "space": "hybrid's fusion (fusion.method, fusion.k, retrieval.depth)",
        "folds": args.folds, "trials_per_search": args.trials, "cpus": os.cpu_count(),
        "runs": runs, "median_trials_per_minute": {str(k): v for k, v in median.items()},
        "speedup_2_over_1": round(median[2] / median[1], 2),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"trials/minute: 1 worker {median[1]}, 2 workers {median[2]} -> {args.out}")


if __name__ == "__main__":
    main()
