"""The stored runs as a history: listed newest first from each run's summary.json, filtered by
collection (or dataset), test set and preset, marked orphaned when their collection is gone and
not comparable when their documents or labels differ from the newest run of their test set;
and `latest` / `best` / run ids / folders resolved to a run.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.runs.store import RUN_FILE, SUMMARY_FILE, runs_dir, summary_row
from rag.paths import collections_root


@dataclass(frozen=True)
class RunRow:
    """One stored run as a list shows it (its summary.json), with the marks a list adds."""

    path: Path
    data: Mapping[str, Any]
    orphaned: bool = False
    comparable: bool = True  # same documents and labels as the newest run of its test set
    why_not: str = ""

    @property
    def id(self) -> str:
        return self.path.name

    @property
    def created(self) -> str:
        return str(self.data.get("created") or "")

    @property
    def label(self) -> str:
        return str(self.data.get("label") or self.data.get("preset") or "")

    @property
    def preset(self) -> str:
        return str(self.data.get("preset") or "")

    @property
    def collection(self) -> str | None:
        return self.data.get("collection")

    @property
    def scope(self) -> str:
        """The collection the run read, else its dataset's name."""
        return str(self.collection or self.data.get("dataset", {}).get("name") or "")

    @property
    def testset(self) -> Mapping[str, Any]:
        return self.data.get("testset") or {}

    @property
    def data_hash(self) -> str:
        return str(self.data.get("dataset", {}).get("hash") or "")

    @property
    def key(self) -> tuple[str, str, str]:
        """What must match for two runs to be compared on equal terms."""
        return (self.data_hash, str(self.testset.get("hash") or ""),
                str(self.testset.get("judgments") or ""))

    def metric(self, name: str) -> float | None:
        value = self.data.get("metrics", {}).get(name)
        return float(value) if value is not None and math.isfinite(value) else None


def _read(path: Path) -> dict[str, Any] | None:
    """The run's list row: summary.json, or built from run.json for runs stored before it."""
    try:
        summary = path / SUMMARY_FILE
        if summary.is_file():
            row = json.loads(summary.read_text(encoding="utf-8"))
        else:
            row = summary_row(json.loads((path / RUN_FILE).read_text(encoding="utf-8")))
    except (OSError, ValueError):  # unreadable or half-written by hand: not listed
        return None
    if not isinstance(row, dict):
        return None
    row["id"] = path.name
    return row


def _key(row: Mapping[str, Any]) -> tuple[Any, ...]:
    test = row.get("testset") or {}
    return ((row.get("dataset") or {}).get("hash"), test.get("name"), test.get("hash"),
            test.get("judgments"), test.get("labels"))


def why_not_comparable(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """What differs between two runs' list rows in what they were scored on."""
    reasons = []
    ta, tb = a.get("testset") or {}, b.get("testset") or {}
    if ta.get("name") != tb.get("name"):
        reasons.append(f"different test sets ({ta.get('name')} vs {tb.get('name')})")
    elif ta.get("hash") != tb.get("hash"):
        reasons.append(f"the test set {ta.get('name')!r} changed (questions or labels)")
    if ta.get("judgments") != tb.get("judgments"):
        reasons.append(f"judgments differ ({ta.get('judgments') or 'none'} vs "
                       f"{tb.get('judgments') or 'none'})")
    if ta.get("labels") != tb.get("labels"):
        reasons.append(f"labels by {ta.get('labels')} vs {tb.get('labels')}")
    da, db = a.get("dataset") or {}, b.get("dataset") or {}
    if da.get("hash") != db.get("hash"):
        reasons.append("different documents (data hash "
                       f"{str(da.get('hash'))[:8]} vs {str(db.get('hash'))[:8]})")
    return reasons


def _matches(row: Mapping[str, Any], collection: str | None, qa: str | None,
             preset: str | None) -> bool:
    if collection and collection not in (row.get("collection"),
                                         (row.get("dataset") or {}).get("name")):
        return False
    if qa and qa != (row.get("testset") or {}).get("name"):
        return False
    return not preset or preset in (row.get("preset"), row.get("label"))


def list_rows(
    root: Path | None = None, collection: str | None = None, qa: str | None = None,
    preset: str | None = None,
) -> list[RunRow]:
    """Stored runs newest first, filtered; each marked orphaned / not comparable."""
    base = runs_dir(root)
    rows: list[tuple[Path, dict[str, Any]]] = []
    for path in base.iterdir():
        if path.name.startswith("."):  # a run still being written, or a killed one's leftovers
            continue
        row = _read(path)
        if row is not None and _matches(row, collection, qa, preset):
            rows.append((path, row))
    rows.sort(key=lambda pr: (str(pr[1].get("created") or ""), pr[0].name), reverse=True)
    existing: dict[str, bool] = {}
    newest: dict[tuple[str, str], dict[str, Any]] = {}
    out = []
    for path, row in rows:
        name = row.get("collection")
        if name and name not in existing:
            existing[name] = (collections_root() / name).is_dir()
        group = (str(name or (row.get("dataset") or {}).get("name")),
                 str((row.get("testset") or {}).get("name")))
        reference = newest.setdefault(group, row)
        reasons = why_not_comparable(reference, row) if _key(reference) != _key(row) else []
        out.append(RunRow(path, row, bool(name) and not existing[name], not reasons,
                          "; ".join(reasons)))
    return out


def best_run(rows: Sequence[RunRow], metric: str) -> RunRow:
    """The run with the highest `metric` among those comparable with the newest of `rows`."""
    if not rows:
        raise LookupError("no stored run matches")
    pool = [r for r in rows if r.key == rows[0].key and r.metric(metric) is not None]
    if not pool:
        raise LookupError(f"no run comparable with the newest has {metric!r}")
    return max(pool, key=lambda r: (r.metric(metric) or 0.0, r.created))


def resolve(
    ref: str, root: Path | None = None, collection: str | None = None, qa: str | None = None,
    metric: str = "ndcg@10", preset: str | None = None,
) -> Path:
    """A run folder from a folder path, a run id (or a unique part of one), or `latest` / `best`
    among the runs of `collection` and test set `qa` (and `preset`, when given)."""
    path = Path(ref)
    if (path / RUN_FILE).is_file():
        return path
    if ref in ("latest", "best"):
        rows = list_rows(root, collection, qa, preset)
        if not rows:
            scope = ", ".join(f"{k} {v!r}" for k, v in (("collection", collection), ("test set", qa),
                                                         ("preset", preset)) if v)
            raise LookupError(f"no stored run{' for ' + scope if scope else ''}")
        return (rows[0] if ref == "latest" else best_run(rows, metric)).path
    base = runs_dir(root)
    if (base / ref / RUN_FILE).is_file():
        return base / ref
    found = [p for p in base.iterdir() if ref in p.name and not p.name.startswith(".")
             and (p / RUN_FILE).is_file()]
    if len(found) == 1:
        return found[0]
    if not found:
        raise LookupError(f"no stored run {ref!r} in {base} (give a run folder, a run id from "
                          "`python -m eval runs list`, latest or best)")
    raise LookupError(f"{ref!r} names {len(found)} runs: " + ", ".join(p.name for p in found[:5]))
