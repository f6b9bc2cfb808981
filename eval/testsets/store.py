"""Test sets that belong to a collection, kept in its folder: `<collection>/testsets/NAME.jsonl`.

Each set is a QA JSONL file (eval/data/qa.py reads it as any other) whose rows may carry a
`provenance` object: {"method": "mined"|"llm"|"judged"|"unanswerable", "model": …,
"filters_passed": […], "source": {"doc", "start", "end"}, …}. Living in the collection's folder,
the sets go when the collection is deleted. Writes are atomic (a temporary file renamed over the
old one), so a reader never sees half a set and two writers never interleave lines.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import portalocker

from eval.data.qa import QASet, item_from_row, load_qa_file
from eval.data.shapes import DatasetError
from rag.index.collection import check_name, open_collection
from rag.paths import collections_root

SETS_DIR = "testsets"
SUFFIX = ".jsonl"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_CREATED = ".created.json"  # {set name: ISO time of its first save}


@dataclass(frozen=True)
class TestSetInfo:
    """What the Evaluate page lists for one stored set."""

    __test__ = False  # not a pytest class

    collection: str
    name: str
    path: Path
    questions: int
    answerable: int
    provenance: dict[str, int]  # e.g. {"mined": 31, "llm:SmolLM2-135M": 9, "judged": 5}
    created: str  # ISO date-time of the first save


def check_set_name(name: str) -> None:
    """A ValueError saying what a set name may hold (no paths, no '..'), unless `name` is one."""
    if not _NAME.match(name) or ".." in name or name.endswith(SUFFIX):
        raise ValueError(
            f"test set name {name!r} must start with a letter or digit and use only letters, "
            f"digits, '_', '-' or '.' (at most 64 characters, no '..', without {SUFFIX})"
        )


def _sets_dir(collection: str) -> Path:
    check_name(collection)
    return collections_root() / collection / SETS_DIR


def set_path(collection: str, name: str) -> Path:
    """Where set `name` of `collection` is (or would be) stored."""
    check_set_name(name)
    return _sets_dir(collection) / f"{name}{SUFFIX}"


def provenance_key(row: Mapping[str, Any]) -> str:
    """How a row counts in a set's provenance: its method, with the model for generated rows."""
    prov = row.get("provenance")
    if not isinstance(prov, Mapping) or not prov.get("method"):
        return "unlabelled"
    method = str(prov["method"])
    model = prov.get("model")
    return f"{method}:{model}" if method == "llm" and model else method


def _created(directory: Path) -> dict[str, str]:
    try:
        data = json.loads((directory / _CREATED).read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _dates_locked(directory: Path) -> portalocker.Lock:
    """The creation dates file is read, changed and written by one process at a time."""
    return portalocker.Lock(directory / ".dates.lock", "a", timeout=30,
                            flags=portalocker.LOCK_EX | portalocker.LOCK_NB)


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _info(collection: str, path: Path, rows: Sequence[Mapping[str, Any]], created: str) -> TestSetInfo:
    return TestSetInfo(
        collection=collection,
        name=path.name[: -len(SUFFIX)],
        path=path,
        questions=len(rows),
        answerable=sum(1 for r in rows if r.get("answerable", True) is not False),
        provenance=dict(Counter(provenance_key(r) for r in rows)),
        created=created,
    )


def _mtime_iso(path: Path) -> str:
    return datetime.fromtimestamp(path.stat().st_mtime, UTC).isoformat(timespec="seconds")


def save_set(collection: str, name: str, rows: Sequence[Mapping[str, Any]]) -> TestSetInfo:
    """Store `rows` (QA JSONL rows) as set `name` of `collection`, replacing a set of that name.

    Every row is validated as eval/data/qa.py reads it before anything is written, so a bad row
    is a DatasetError and the stored set stays as it was.
    """
    path = set_path(collection, name)
    open_collection(collection)  # raises, listing the collections there are, for an unknown one
    if not rows:
        raise DatasetError(name, "no questions")
    seen: set[str] = set()
    for line, row in enumerate(rows, start=1):
        item = item_from_row(row, name, line)
        if "id" in row and item.qid in seen:
            raise DatasetError(name, f"duplicate question id {item.qid!r}", line, "id")
        seen.add(item.qid)
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_atomic(path, "".join(json.dumps(dict(r), ensure_ascii=False) + "\n" for r in rows))
    with _dates_locked(path.parent):  # two first saves of two sets: both dates kept
        created = _created(path.parent)
        if name not in created:  # first save of this name: remember when
            created[name] = datetime.now(UTC).isoformat(timespec="seconds")
            _write_atomic(path.parent / _CREATED, json.dumps(created, indent=1, sort_keys=True))
    return _info(collection, path, rows, created[name])


def _read_rows(path: Path) -> list[dict[str, Any]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            value = json.loads(line)
            rows.append(value if isinstance(value, dict) else {})
    return rows


def read_rows(collection: str, name: str) -> list[dict[str, Any]]:
    """The stored rows of a set as written (provenance and all), for editing and re-saving."""
    path = set_path(collection, name)
    if not path.is_file():
        raise DatasetError(path, f"collection {collection!r} has no test set {name!r}")
    return _read_rows(path)


def list_sets(collection: str) -> list[TestSetInfo]:
    """The sets stored with `collection`, by name (none for a collection without any)."""
    directory = _sets_dir(collection)
    if not directory.is_dir():
        return []
    created = _created(directory)
    infos = []
    for path in sorted(directory.glob(f"*{SUFFIX}")):
        name = path.name[: -len(SUFFIX)]
        try:
            check_set_name(name)
            rows = _read_rows(path)
        except (ValueError, OSError):  # json.JSONDecodeError is a ValueError
            continue  # not one of ours, or unreadable: load_set reports why when asked
        infos.append(_info(collection, path, rows, created.get(name) or _mtime_iso(path)))
    return infos


def load_set(collection: str, name: str) -> QASet:
    """Set `name` of `collection` as a QASet (named after the set)."""
    path = set_path(collection, name)
    if not path.is_file():
        names = ", ".join(i.name for i in list_sets(collection)) or "(none yet)"
        raise DatasetError(path, f"collection {collection!r} has no test set {name!r}; it has: "
                           f"{names}")
    return load_qa_file(path)


def delete_set(collection: str, name: str) -> None:
    """Remove set `name` of `collection` (nothing happens when there is none)."""
    path = set_path(collection, name)
    path.unlink(missing_ok=True)
    if not path.parent.is_dir():
        return
    with _dates_locked(path.parent):
        created = _created(path.parent)
        if created.pop(name, None) is not None:
            _write_atomic(path.parent / _CREATED, json.dumps(created, indent=1, sort_keys=True))


def resolve_qa(collection: str | None, value: str | Path) -> QASet:
    """`--qa SET`: a set stored with `collection` when one has that name, else a file path."""
    text = str(value)
    if collection is not None and _NAME.match(text) and ".." not in text:
        if set_path(collection, text).is_file():
            return load_set(collection, text)
    path = Path(text)
    if path.is_file():
        return load_qa_file(path)
    stored = ", ".join(i.name for i in list_sets(collection)) if collection else ""
    where = f"; collection {collection!r} has the sets: {stored or '(none yet)'}" if collection else ""
    raise DatasetError(text, f"neither a QA file nor a stored test set{where}")
