"""Stored runs: one folder per run under <data dir>/runs with its config, data hash and versions.

Each folder holds `run.json` (summary, config, dataset identity, package versions, command) and
`perquery.parquet` (one row per query: metrics, latency, error, doc ranking as JSON), so two runs
can be compared later, query by query.
"""

from __future__ import annotations

import json
import platform
import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd

from rag.paths import PROJECT_ROOT, data_dir

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
    def preset(self) -> str:
        return str(self.info["summary"]["preset"])


def runs_dir(root: Path | None = None) -> Path:
    path = root if root is not None else data_dir() / "runs"
    path.mkdir(parents=True, exist_ok=True)
    return path


def package_versions(names: Sequence[str] = TRACKED_PACKAGES) -> dict[str, str | None]:
    """Installed versions (None when a package is absent), plus python and the git commit."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    versions["git_commit"] = _git_commit()
    return versions


def _git_commit() -> str | None:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=PROJECT_ROOT, capture_output=True, text=True,
            timeout=5, check=False,
        )
    except (OSError, subprocess.SubprocessError):  # no git on this machine: the run says None
        return None
    return done.stdout.strip() or None


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:40] or "run"


def save_run(
    info: Mapping[str, Any], per_query: Sequence[Mapping[str, Any]], root: Path | None = None
) -> Path:
    """Write a run folder; `info` holds 'summary' (with 'preset') and 'dataset' (with 'hash')."""
    created = datetime.now(UTC)
    name = "-".join((
        created.strftime("%Y%m%dT%H%M%S%fZ"), _slug(info["summary"]["preset"]),
        str(info["dataset"]["hash"])[:8],
    ))
    folder = runs_dir(root) / name
    folder.mkdir(parents=True)
    record = {**info, "created": created.isoformat(), "versions": package_versions()}
    (folder / "run.json").write_text(json.dumps(record, indent=2, ensure_ascii=False))
    per_query_frame(per_query).to_parquet(folder / "perquery.parquet", index=False)
    return folder


def per_query_frame(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Flatten per-query rows: metrics become `metric:<name>` columns, rankings JSON text."""
    flat = []
    for row in rows:
        out = {k: v for k, v in row.items() if k not in ("metrics", "ranking")}
        out.update({f"metric:{k}": v for k, v in row.get("metrics", {}).items()})
        out["ranking"] = json.dumps(row.get("ranking", []))
        flat.append(out)
    return pd.DataFrame(flat)


def load_run(folder: str | Path) -> StoredRun:
    folder = Path(folder)
    info = json.loads((folder / "run.json").read_text())
    return StoredRun(folder, info, pd.read_parquet(folder / "perquery.parquet"))


def list_runs(root: Path | None = None) -> list[Path]:
    """Stored run folders, newest first."""
    return sorted((p for p in runs_dir(root).iterdir() if (p / "run.json").is_file()),
                  reverse=True)
