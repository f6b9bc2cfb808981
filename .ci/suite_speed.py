"""The test suite's wall time before and after, on this machine, in one run (issue #11's figure).

    python .ci/suite_speed.py [--before 0bed198] [--out benchmarks/results/suite_speed.json]

Checks out `--before` (default: the last commit before the one-pipeline work) in a temporary
worktree and runs, one after the other: its whole suite with its own command (one process), the
current whole suite with the README's command (two workers), and the tests both suites contain
(same file name and test id) with each side's command. Also counts each common test's assert
statements on both sides, so "no assertion removed" is checked, not assumed. Run it on a quiet
machine; the load average is recorded beside every timing.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BEFORE_CMD = ["-p", "no:randomly", "-p", "no:langsmith_plugin"]  # its README: pytest -q tests
AFTER_CMD = ["--ignore=tests/llm"]  # the README's first pytest command (pyproject adds -n auto)


def collect(checkout: Path, extra: list[str]) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "--co", "-n", "0", "tests", *extra],
                          cwd=checkout, capture_output=True, text=True, env=_env())
    return [line for line in done.stdout.splitlines() if "::" in line]


def _key(node_id: str) -> tuple[str, str]:
    path, rest = node_id.split("::", 1)
    return os.path.basename(path), rest


def _env() -> dict[str, str]:
    return {**os.environ, "RAG_WORKBENCH_DATA": tempfile.mkdtemp(prefix="suite-speed-")}


def timed(checkout: Path, args: list[str]) -> dict[str, Any]:
    """Wall and CPU seconds of one pytest run, its pass count and the load around it."""
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", *args], cwd=checkout,
                          capture_output=True, text=True, env=_env())
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-500:]
    passed = re.search(r"(\d+) passed", summary)
    return {"exit_code": done.returncode, "summary": summary,
            "passed": int(passed.group(1)) if passed else 0, "wall_s": round(wall, 1),
            "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1),
            "load_before": round(load, 2), "load_after": round(os.getloadavg()[0], 2)}


def assert_counts(checkout: Path, node_ids: list[str]) -> dict[tuple[str, str], int]:
    """Assert statements (and pytest.raises blocks) in each test function's body."""
    per_file: dict[str, dict[str, int]] = {}
    counts = {}
    for node_id in node_ids:
        path, rest = node_id.split("::", 1)
        if path not in per_file:
            tree = ast.parse((checkout / path).read_text(encoding="utf-8"))
            per_file[path] = {
                f.name: sum(isinstance(n, ast.Assert) or (isinstance(n, ast.withitem)
                            and "raises" in ast.unparse(n.context_expr)) for n in ast.walk(f))
                for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
        counts[_key(node_id)] = per_file[path].get(rest.split("[")[0].split("::")[-1], 0)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="0bed198")
    parser.add_argument("--out", type=Path, default=ROOT / "eval" / "results" / "suite_speed.json")
    args = parser.parse_args()
    old = Path(tempfile.mkdtemp(prefix="suite-before-")) / "tree"
    subprocess.run(["git", "worktree", "add", "-q", "--detach", str(old), args.before],
                   cwd=ROOT, check=True)
    try:
        if (ROOT / "datasets" / "build").exists() and not (old / "datasets" / "build").exists():
            (old / "datasets" / "build").symlink_to(ROOT / "datasets" / "build")
        old_ids, new_ids = collect(old, BEFORE_CMD), collect(ROOT, AFTER_CMD)
        new_by_key = {_key(i): i for i in new_ids}
        common_old = [i for i in old_ids if _key(i) in new_by_key]
        common_new = [new_by_key[_key(i)] for i in common_old]
        lists = Path(tempfile.mkdtemp(prefix="suite-ids-"))
        (lists / "old.args").write_text("\n".join(common_old) + "\n")
        (lists / "new.args").write_text("\n".join(common_new) + "\n")
        runs = {
            "before_whole": timed(old, [*BEFORE_CMD, "tests"]),
            "after_whole": timed(ROOT, [*AFTER_CMD, "tests", "benchmarks/tests"]),
            "before_common": timed(old, [*BEFORE_CMD, f"@{lists / 'old.args'}"]),
            "after_common": timed(ROOT, [f"@{lists / 'new.args'}"]),
        }
        old_asserts = assert_counts(old, common_old)
        new_asserts = assert_counts(ROOT, common_new)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT, check=False)

    def per_test(run: str) -> float:
        return runs[run]["wall_s"] / max(runs[run]["passed"], 1)

    report = {
        "before_commit": args.before,
        "after_commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                       capture_output=True, text=True).stdout.strip(),
        "cpu_count": os.cpu_count(), "runs": runs,
        "tests_before": len(old_ids), "tests_after": len(new_ids), "tests_common": len(common_old),
        "common_speedup": round(runs["before_common"]["wall_s"] / runs["after_common"]["wall_s"], 2),
        "per_test_speedup_whole": round(per_test("before_whole") / per_test("after_whole"), 2),
        "asserts_common_before": sum(old_asserts.values()),
        "asserts_common_after": sum(new_asserts.values()),
        "common_tests_with_fewer_asserts": sorted(
            "::".join(k) for k in old_asserts if new_asserts[k] < old_asserts[k]),
    }
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "runs"}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
