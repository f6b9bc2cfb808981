"""`eval tune --storage URL --workers N`: start N-1 more local processes on the same studies.

Each worker is `python -m eval tune` with the same options, `--study NAME` and `--worker K`: it
pulls trials of every search's study (eval.tune.distributed) and writes nothing; the process
started by the user writes the report and stores the run. Processes on other machines join the
same way: the same command with `--storage` reachable from there, `--study NAME` (printed by the
first process) and their own `--worker K`.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any

from rag.paths import PROJECT_ROOT

# options passed on to a worker: (attribute, flag, how it is given)
_OPTIONS = (
    ("dataset", "--dataset", "value"), ("collection", "--collection", "value"),
    ("qa", "--qa", "value"), ("preset", "--preset", "value"), ("space", "--space", "value"),
    ("folds", "--folds", "value"), ("trials", "--trials", "value"), ("seed", "--seed", "value"),
    ("split", "--split", "value"), ("metrics", "--metrics", "list"), ("set", "--set", "each"),
    ("max_queries", "--max-queries", "value"), ("resamples", "--resamples", "value"),
    ("storage", "--storage", "value"), ("out", "--out", "value"),
)


def worker_argv(args: argparse.Namespace, study: str, worker: int) -> list[str]:
    """The command line of worker `worker`: this tune's options, the study, no storing."""
    argv = ["tune"]
    for attr, flag, how in _OPTIONS:
        value: Any = getattr(args, attr, None)
        if value is None:
            continue
        if how == "list":
            argv += [flag, *map(str, value)]
        elif how == "each":
            for item in value:
                argv += [flag, str(item)]
        else:
            argv += [flag, str(value)]
    return [*argv, "--study", study, "--worker", str(worker), "--no-store"]


def start_workers(args: argparse.Namespace, study: str, log_dir: Path) -> list[subprocess.Popen[bytes]]:
    """Workers 1 .. N-1, each logging to LOG_DIR/worker-K.log."""
    log_dir.mkdir(parents=True, exist_ok=True)
    started = []
    for k in range(1, args.workers):
        log = (log_dir / f"worker-{k}.log").open("wb")
        started.append(subprocess.Popen(
            [sys.executable, "-m", "eval", *worker_argv(args, study, k)], cwd=PROJECT_ROOT,
            stdout=log, stderr=subprocess.STDOUT))
        log.close()  # the child holds its own handle
    return started


def wait_workers(workers: list[subprocess.Popen[bytes]], timeout_s: float = 600.0) -> list[int]:
    """Each worker's exit code (a worker still running after the timeout is stopped: -1)."""
    codes = []
    for proc in workers:
        try:
            codes.append(proc.wait(timeout=timeout_s))
        except subprocess.TimeoutExpired:
            proc.kill()
            codes.append(-1)
    return codes
