"""Cold `python -m rag query` wall time: a fresh process per run, several checkouts interleaved.

    python -m benchmarks.cold_query --checkout before=/work/main --checkout after=. \\
        --data /tmp/cold-data --runs 5

Each run is `/usr/bin/time -v python -m rag query QUESTION --collection COLL` in the checkout's
directory; runs of the checkouts alternate, so a change of machine load hits them alike. The best
of the runs is the figure (the machine is shared: the best is the least disturbed). One more run
per checkout with `-X importtime` sums the import time. Modes: `nopyc` (PYTHONDONTWRITEBYTECODE=1,
every module compiled from source, as on this machine) and `pyc` (a warm bytecode cache under
/tmp, as on a user's machine after the first run).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

QUESTION = "How long do deleted notes stay in the trash?"
_WALL = re.compile(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)")
_RSS = re.compile(r"Maximum resident set size \(kbytes\): (\d+)")


def _env(data: Path, mode: str, label: str) -> dict[str, str]:
    env = {**os.environ, "RAG_WORKBENCH_DATA": str(data), "HF_HUB_OFFLINE": "1",
           "HF_DATASETS_OFFLINE": "1"}
    env.pop("PYTHONPYCACHEPREFIX", None)
    if mode == "nopyc":
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:  # bytecode cached outside the checkout, one cache per checkout
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = f"/tmp/cold-query-pyc-{label}"
    return env


def _query(collection: str) -> list[str]:
    return [sys.executable, "-m", "rag", "query", QUESTION, "--collection", collection]


def one_run(checkout: Path, env: dict[str, str], collection: str) -> tuple[float, int]:
    """Wall seconds and max RSS (kB) of one cold query."""
    done = subprocess.run(["/usr/bin/time", "-v", *_query(collection)], cwd=checkout, env=env,
                          capture_output=True, text=True, check=True)
    wall = _WALL.search(done.stderr)
    rss = _RSS.search(done.stderr)
    assert wall and rss, done.stderr[-500:]
    hours, minutes, seconds = wall.groups()
    return int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds), int(rss.group(1))


def import_seconds(checkout: Path, env: dict[str, str], collection: str) -> float:
    """Sum of the self times `-X importtime` reports for one cold query."""
    cmd = [sys.executable, "-X", "importtime", *_query(collection)[1:]]
    done = subprocess.run(cmd, cwd=checkout, env=env, capture_output=True, text=True, check=True)
    selfs = [int(line.split("|")[0].split(":")[1]) for line in done.stderr.splitlines()
             if line.startswith("import time:") and "self [us]" not in line]
    return sum(selfs) / 1e6


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", action="append", required=True, help="label=path")
    parser.add_argument("--data", type=Path, required=True, help="RAG_WORKBENCH_DATA with the collection")
    parser.add_argument("--collection", default="samples")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/cold_query_samples.json"))
    args = parser.parse_args(argv)
    checkouts = {label: Path(path).resolve() for label, path in
                 (item.split("=", 1) for item in args.checkout)}
    results: dict[str, dict[str, object]] = {}
    for mode in ("nopyc", "pyc"):
        walls: dict[str, list[float]] = {label: [] for label in checkouts}
        rss: dict[str, list[int]] = {label: [] for label in checkouts}
        loads = []
        if mode == "pyc":  # fill each checkout's bytecode cache first
            for label, path in checkouts.items():
                one_run(path, _env(args.data, mode, label), args.collection)
        for _ in range(args.runs):
            for label, path in checkouts.items():
                loads.append(os.getloadavg()[0])
                wall, kb = one_run(path, _env(args.data, mode, label), args.collection)
                walls[label].append(round(wall, 2))
                rss[label].append(kb)
        for label, path in checkouts.items():
            env = _env(args.data, mode, label)
            results[f"{label}/{mode}"] = {
                "checkout": str(path), "wall_s_runs": walls[label], "wall_s_best": min(walls[label]),
                "max_rss_mb_best": round(min(rss[label]) / 1024, 1),
                "import_s_one_run": round(import_seconds(path, env, args.collection), 3),
            }
        results[f"load_1min/{mode}"] = {"min": min(loads), "max": max(loads)}
    report = {
        "command": " ".join(["python -m benchmarks.cold_query", *sys.argv[1:]] if argv is None
                            else ["python -m benchmarks.cold_query", *argv]),
        "query": " ".join(_query(args.collection)[1:]),
        "runs_per_checkout": args.runs,
        "cores": os.cpu_count(),
        "results": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
