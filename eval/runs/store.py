"""Stored runs: one folder per run under <data dir>/runs, written atomically.

A run folder holds
- `run.json`: everything about the run (summary, config and its hash, what it was scored on:
  dataset with its data hash, test set with its content hash and labels, package versions, git
  commit, user, command);
- `summary.json`: the run's row in a list (eval.runs.history reads only these, so listing
  thousands of runs stays fast);
- `perquery.parquet`: one row per query (metrics, latency, error, ranking as JSON);
- `traces.sqlite` (when the run kept them): each query's trace, zlib-compressed JSON.

A run is written into a hidden temporary folder and renamed into place, so a killed run leaves
at most a `.tmp-*` folder that listing skips (and a later save sweeps away).
"""

from __future__ import annotations

import functools
import getpass
import json
import math
import os
import platform
import re
import shutil
import sqlite3
import subprocess
import time
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd

from eval.runs.identity import config_hash
from rag.paths import PROJECT_ROOT, data_dir
from rag.trace import Trace

SCHEMA = 2
RUN_FILE, SUMMARY_FILE = "run.json", "summary.json"
PER_QUERY_FILE, TRACES_FILE = "perquery.parquet", "traces.sqlite"
TMP_PREFIX = ".tmp-"
STALE_S = 24 * 3600  # a temporary folder this old belongs to a killed run
# Packages whose versions change retrieval numbers; recorded with every run.
TRACKED_PACKAGES = (
    "numpy", "torch", "sentence-transformers", "transformers", "fastembed", "onnxruntime",
    "qdrant-client", "bm25s", "rank-bm25", "pytrec-eval-terrier", "pydantic",
)


@dataclass(frozen=True)
class StoredRun:
    """A run read back from disk: its run.json contents and its per-query table."""

    path: Path
    info: Mapping[str, Any]
    per_query: pd.DataFrame

    @property
    def id(self) -> str:
        return self.path.name

    @property
    def preset(self) -> str:
        return str(self.info["summary"]["preset"])

    def metric_values(self, metric: str) -> pd.Series:
        """qid -> value of `metric` (NaN for a failed query)."""
        column = f"metric:{metric}"
        if column not in self.per_query.columns:
            have = [c.split(":", 1)[1] for c in self.per_query.columns if c.startswith("metric:")]
            raise KeyError(f"run {self.id} has no metric {metric!r}; it has: {', '.join(have)}")
        return pd.Series(self.per_query[column].to_numpy(dtype=float),
                         index=self.per_query["qid"].astype(str))

    def trace(self, qid: str) -> Trace | None:
        """The trace the run kept for `qid`, or None when it kept none."""
        return load_trace(self.path, qid)


def runs_dir(root: Path | None = None) -> Path:
    path = root if root is not None else data_dir() / "runs"
    path.mkdir(parents=True, exist_ok=True)
    return path


def package_versions(names: Sequence[str] = TRACKED_PACKAGES) -> dict[str, str | None]:
    """Installed versions (None when a package is absent), plus python and the git commit."""
    versions: dict[str, str | None] = {"python": platform.python_version(), **_installed(tuple(names))}
    versions["git_commit"] = git_commit()
    return versions


@functools.lru_cache(maxsize=4)
def _installed(names: tuple[str, ...]) -> dict[str, str | None]:
    """The versions a running process has loaded do not change under it: looked up once."""
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


_COMMIT_TTL_S = 5.0  # a sweep stores many runs in a row: ask git once, yet see a new commit
_commit_seen: tuple[float, str | None] = (-_COMMIT_TTL_S, None)


def git_commit() -> str | None:
    """HEAD of the project's checkout, with '+dirty' when tracked files differ from it."""
    global _commit_seen
    if time.monotonic() - _commit_seen[0] < _COMMIT_TTL_S:
        return _commit_seen[1]
    _commit_seen = (time.monotonic(), _ask_git())
    return _commit_seen[1]


def _ask_git() -> str | None:
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=PROJECT_ROOT,
                              capture_output=True, text=True, timeout=5, check=False)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=5,
                               check=False)
    except (OSError, subprocess.SubprocessError):  # no git on this machine: the run says None
        return None
    commit = head.stdout.strip()
    if not commit:
        return None
    return commit + ("+dirty" if dirty.stdout.strip() else "")


def default_user() -> str:
    """Who ran a command-line run: RAG_WORKBENCH_USER, else the login name."""
    try:
        return os.environ.get("RAG_WORKBENCH_USER") or getpass.getuser()
    except (KeyError, OSError):  # no login name in a container
        return ""


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:40] or "run"


def summary_row(record: Mapping[str, Any]) -> dict[str, Any]:
    """A run's row in a list: what the Runs page and `eval runs list` show and filter on."""
    summary = record.get("summary", {})
    dataset = record.get("dataset", {})
    testset = record.get("testset") or {"name": dataset.get("name"), "hash": dataset.get("hash"),
                                        "labels": "unknown", "judgments": None}
    return {
        "id": record.get("id"), "created": record.get("created"),
        "kind": record.get("kind", "run"), "source": record.get("source", "cli"),
        "label": record.get("label") or summary.get("preset"), "preset": summary.get("preset"),
        "group": record.get("group"), "collection": record.get("collection"),
        "dataset": {"name": dataset.get("name"),
                    "hash": dataset.get("data_hash") or dataset.get("hash")},
        "testset": testset, "mode": record.get("mode"),
        "config_hash": record.get("config_hash"),
        "n_queries": summary.get("n_queries"), "failed": summary.get("failed"),
        "metrics": summary.get("metrics", {}), "ci95": summary.get("ci95", {}),
        "latency_ms": summary.get("latency_ms", {}),
        "git_commit": record.get("git_commit") or record.get("versions", {}).get("git_commit"),
        "user": record.get("user"), "schema": record.get("schema", 1),
    }


def save_run(
    info: Mapping[str, Any], per_query: Sequence[Mapping[str, Any]], root: Path | None = None,
    traces: Mapping[str, Trace] | None = None,
) -> Path:
    """Write a run folder atomically and return it. `info` holds 'summary' (with 'preset'),
    'dataset' (with 'hash') and 'config'; optional 'testset', 'collection', 'kind', 'label',
    'group', 'user', 'source', 'mode'. `traces` (qid -> Trace) are kept for drill-down."""
    created = datetime.now(UTC)
    base = runs_dir(root)
    label = str(info.get("label") or info["summary"]["preset"])
    run_id = "-".join((created.strftime("%Y%m%dT%H%M%S%fZ"), _slug(label),
                       str(info["dataset"]["hash"])[:8]))
    versions = package_versions()
    record = {
        "schema": SCHEMA, "id": run_id, "created": created.isoformat(),
        "kind": "run", "source": "cli", **info,
        "user": info.get("user") if info.get("user") is not None else default_user(),
        "config_hash": config_hash(info.get("config", {})),
        "git_commit": versions["git_commit"], "versions": versions,
    }
    _sweep_stale(base)
    tmp = base / f"{TMP_PREFIX}{run_id}-{os.getpid()}"
    tmp.mkdir(parents=True)
    try:
        (tmp / RUN_FILE).write_text(json.dumps(record, indent=2, ensure_ascii=False,
                                               default=str))
        (tmp / SUMMARY_FILE).write_text(json.dumps(summary_row(record), ensure_ascii=False,
                                                   default=str))
        per_query_frame(per_query).to_parquet(tmp / PER_QUERY_FILE, index=False)
        if traces:
            _write_traces(tmp / TRACES_FILE, traces)
        os.rename(tmp, base / run_id)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return base / run_id


def _sweep_stale(base: Path) -> None:
    """Remove temporary folders of runs killed long ago (a live run's folder is young)."""
    cutoff = time.time() - STALE_S
    for path in base.glob(f"{TMP_PREFIX}*"):
        try:
            if path.stat().st_mtime < cutoff:
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            continue


def per_query_frame(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Flatten per-query rows: metrics become `metric:<name>` columns, rankings and other
    nested values JSON text."""
    flat = []
    for row in rows:
        out: dict[str, Any] = {}
        for key, value in row.items():
            if key == "metrics":
                out.update({f"metric:{k}": (math.nan if v is None else v)
                            for k, v in value.items()})
            elif key == "ranking" or isinstance(value, Mapping | list | tuple):
                out[key] = json.dumps(value, default=str)
            else:
                out[key] = value
        out.setdefault("ranking", "[]")
        flat.append(out)
    frame = pd.DataFrame(flat)
    if "qid" in frame.columns:
        frame["qid"] = frame["qid"].astype(str)
    return frame



def _write_traces(path: Path, traces: Mapping[str, Trace]) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE traces (qid TEXT PRIMARY KEY, trace BLOB NOT NULL)")
        db.executemany("INSERT OR REPLACE INTO traces VALUES (?, ?)",
                       [(str(q), zlib.compress(t.to_json(indent=None).encode("utf-8"), 6))
                        for q, t in traces.items()])
    db.close()


def load_trace(folder: Path, qid: str) -> Trace | None:
    """The trace a run kept for `qid` (None when it kept none or not this one)."""
    path = Path(folder) / TRACES_FILE
    if not path.is_file():
        return None
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        row = db.execute("SELECT trace FROM traces WHERE qid = ?", (str(qid),)).fetchone()
    finally:
        db.close()
    return None if row is None else Trace.from_json(zlib.decompress(row[0]).decode("utf-8"))


def load_run(folder: str | Path) -> StoredRun:
    folder = Path(folder)
    if not (folder / RUN_FILE).is_file():
        raise FileNotFoundError(f"{folder} is not a stored run (no {RUN_FILE})")
    info = json.loads((folder / RUN_FILE).read_text())
    frame = (pd.read_parquet(folder / PER_QUERY_FILE) if (folder / PER_QUERY_FILE).is_file()
             else pd.DataFrame({"qid": pd.Series(dtype=str)}))
    if "qid" in frame.columns:
        frame["qid"] = frame["qid"].astype(str)
    return StoredRun(folder, info, frame)


def list_runs(root: Path | None = None) -> list[Path]:
    """Stored run folders, newest first (temporary folders of unfinished runs are skipped)."""
    return sorted((p for p in runs_dir(root).iterdir()
                   if not p.name.startswith(".") and (p / RUN_FILE).is_file()), reverse=True)
