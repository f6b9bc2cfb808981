"""Judging progress on disk: one SQLite file per (collection, test set), in the collection's folder
(`<collection>/judging/<set>.sqlite`), resumable and safe for several browser sessions at once.

Nothing is ever rewritten whole. Each judgment is a new row (question, passage span, label,
session, time); the current label of a passage is its latest row, so two sessions judging the
same set interleave instead of overwriting each other, and every earlier decision stays in the
history. Question edits (text, reference answer, dropped, not answerable) are rows too, latest
wins per field. The pool of each question is stored the first time it is built (INSERT OR
IGNORE), so every session judges the same passages.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from rag.index.collection import check_name
from rag.paths import collections_root

Label = Literal["relevant", "not_relevant", "skip"]
LABELS: tuple[Label, ...] = ("relevant", "not_relevant", "skip")
FIELDS = ("question", "answer", "dropped", "unanswerable", "done")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS questions (
    qid TEXT PRIMARY KEY, position INTEGER NOT NULL, row_json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pool (
    qid TEXT NOT NULL, rank INTEGER NOT NULL, doc TEXT NOT NULL, start INTEGER NOT NULL,
    end_ INTEGER NOT NULL, text TEXT NOT NULL, systems TEXT NOT NULL,
    PRIMARY KEY (qid, doc, start, end_));
CREATE TABLE IF NOT EXISTS judgments (
    id INTEGER PRIMARY KEY AUTOINCREMENT, qid TEXT NOT NULL, doc TEXT NOT NULL,
    start INTEGER NOT NULL, end_ INTEGER NOT NULL, label TEXT NOT NULL, session TEXT NOT NULL,
    at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS judgments_by_passage ON judgments (qid, doc, start, end_, id);
CREATE TABLE IF NOT EXISTS edits (
    id INTEGER PRIMARY KEY AUTOINCREMENT, qid TEXT NOT NULL, field TEXT NOT NULL,
    value TEXT NOT NULL, session TEXT NOT NULL, at TEXT NOT NULL);
"""


@dataclass(frozen=True)
class Passage:
    """A pooled passage: characters [start, end) of document `doc`, with the systems (and their
    ranks) that retrieved an overlapping chunk."""

    doc: str
    start: int
    end: int
    text: str
    systems: Mapping[str, int]  # system -> best rank (1-based) it gave the passage

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.doc, self.start, self.end)


@dataclass(frozen=True)
class Question:
    """A question as it stands now: the set's row with every edit applied."""

    qid: str
    question: str
    answer: str
    dropped: bool
    unanswerable: bool
    row: Mapping[str, Any]  # the original set row (spans, provenance, …)
    done: bool = False  # the person said the question is judged (however many passages are)


@dataclass(frozen=True)
class Snapshot:
    """What the Judge page reads, in one transaction: questions (edits applied), every stored
    pool and every current label (one read per page run, not one per question)."""

    questions: tuple[Question, ...]
    pools: Mapping[str, tuple[Passage, ...]]
    labels: Mapping[str, Mapping[tuple[str, int, int], Label]]

    def pool(self, qid: str) -> tuple[Passage, ...]:
        return self.pools.get(qid, ())

    def labels_of(self, qid: str) -> Mapping[tuple[str, int, int], Label]:
        return self.labels.get(qid, {})


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def judging_path(collection: str, set_name: str) -> Path:
    """Where the judgments of `set_name` over `collection` are kept."""
    check_name(collection)
    if not set_name or "/" in set_name or "\\" in set_name or ".." in set_name:
        raise ValueError(f"test set name {set_name!r} may not hold a path")
    return collections_root() / collection / "judging" / f"{set_name}.sqlite"


class JudgingStore:
    """The judgments of one test set. Every write is one short transaction of appended rows."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._db() as db:
            db.executescript(_SCHEMA)

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30)
        try:
            db.execute("PRAGMA journal_mode=WAL")  # readers never block the other session's write
            with db:
                yield db
        finally:
            db.close()

    # questions ----------------------------------------------------------------------------
    def add_questions(self, rows: Sequence[Mapping[str, Any]]) -> int:
        """Add the set's rows (keyed by `id`, else their position); rows already here are kept
        as they are. Returns how many were new."""
        with self._db() as db:
            before = db.execute("SELECT COUNT(*) FROM questions").fetchone()[0]
            db.executemany(
                "INSERT OR IGNORE INTO questions (qid, position, row_json) VALUES (?, ?, ?)",
                [(str(r.get("id") or f"q{i}"), before + i, json.dumps(dict(r), ensure_ascii=False))
                 for i, r in enumerate(rows, start=1)])
            return int(db.execute("SELECT COUNT(*) FROM questions").fetchone()[0] - before)

    def questions(self) -> list[Question]:
        """Every question in set order, with its latest edits applied."""
        with self._db() as db:
            return _questions(db)

    def snapshot(self) -> Snapshot:
        """Questions, pools and labels as they stand, read in one transaction."""
        with self._db() as db:
            questions = _questions(db)
            pools: dict[str, list[Passage]] = {}
            for qid, doc, start, end, text, systems in db.execute(
                    "SELECT qid, doc, start, end_, text, systems FROM pool ORDER BY qid, rank"):
                pools.setdefault(qid, []).append(Passage(doc, start, end, text,
                                                         json.loads(systems)))
            labels = _latest_labels(db.execute(
                "SELECT qid, doc, start, end_, label FROM judgments ORDER BY id").fetchall())
        return Snapshot(tuple(questions), {q: tuple(p) for q, p in pools.items()}, labels)

    def has_judgments(self) -> bool:
        with self._db() as db:
            return db.execute("SELECT 1 FROM judgments LIMIT 1").fetchone() is not None

    def edit(self, qid: str, field: str, value: str | bool, session: str) -> None:
        """Record a new value of one field of a question (latest wins)."""
        if field not in FIELDS:
            raise ValueError(f"unknown field {field!r}; valid: {', '.join(FIELDS)}")
        text = ("1" if value else "0") if isinstance(value, bool) else value
        with self._db() as db:
            db.execute("INSERT INTO edits (qid, field, value, session, at) VALUES (?,?,?,?,?)",
                       (qid, field, text, session, now_iso()))

    # pool ---------------------------------------------------------------------------------
    def has_pool(self, qid: str) -> bool:
        with self._db() as db:
            return db.execute("SELECT 1 FROM pool WHERE qid = ? LIMIT 1", (qid,)).fetchone() \
                is not None

    def add_pool(self, qid: str, passages: Iterable[Passage]) -> None:
        """Store pooled passages (a passage already pooled for the question is kept)."""
        with self._db() as db:
            first = db.execute("SELECT COALESCE(MAX(rank), 0) FROM pool WHERE qid = ?",
                               (qid,)).fetchone()[0]
            db.executemany(
                "INSERT OR IGNORE INTO pool (qid, rank, doc, start, end_, text, systems) "
                "VALUES (?,?,?,?,?,?,?)",
                [(qid, first + i, p.doc, p.start, p.end, p.text, json.dumps(dict(p.systems)))
                 for i, p in enumerate(passages, start=1)])

    def pool(self, qid: str) -> list[Passage]:
        with self._db() as db:
            rows = db.execute("SELECT doc, start, end_, text, systems FROM pool WHERE qid = ? "
                              "ORDER BY rank", (qid,)).fetchall()
        return [Passage(d, s, e, t, json.loads(sy)) for d, s, e, t, sy in rows]

    # judgments ----------------------------------------------------------------------------
    def judge(self, qid: str, passage: tuple[str, int, int], label: Label, session: str) -> None:
        """Append one judgment of a passage; the latest one is its label."""
        if label not in LABELS:
            raise ValueError(f"unknown label {label!r}; valid: {', '.join(LABELS)}")
        doc, start, end = passage
        with self._db() as db:
            db.execute("INSERT INTO judgments (qid, doc, start, end_, label, session, at) "
                       "VALUES (?,?,?,?,?,?,?)", (qid, doc, start, end, label, session, now_iso()))

    def labels(self, qid: str | None = None) -> dict[str, dict[tuple[str, int, int], Label]]:
        """{qid: {passage key: latest label}} (one question when `qid` is given)."""
        sql = "SELECT qid, doc, start, end_, label FROM judgments"
        args: tuple[str, ...] = ()
        if qid is not None:
            sql, args = sql + " WHERE qid = ?", (qid,)
        with self._db() as db:
            return _latest_labels(db.execute(sql + " ORDER BY id", args).fetchall())

    def copy_to(self, path: Path) -> JudgingStore:
        """The whole judging (pools, every judgment and edit) copied to `path`, replacing what
        was there: a set saved under a new name keeps being judged where it stood."""
        path.parent.mkdir(parents=True, exist_ok=True)
        source, target = sqlite3.connect(self.path, timeout=30), sqlite3.connect(path, timeout=30)
        try:
            source.backup(target)
        finally:
            source.close()
            target.close()
        return JudgingStore(path)

    def history(self, qid: str) -> list[tuple[str, str, int, int, str, str]]:
        """Every judgment of a question in order: (at, doc, start, end, label, session)."""
        with self._db() as db:
            return db.execute("SELECT at, doc, start, end_, label, session FROM judgments "
                              "WHERE qid = ? ORDER BY id", (qid,)).fetchall()


def _questions(db: sqlite3.Connection) -> list[Question]:
    rows = db.execute("SELECT qid, row_json FROM questions ORDER BY position").fetchall()
    latest: dict[str, dict[str, str]] = {}
    for qid, name, value in db.execute("SELECT qid, field, value FROM edits ORDER BY id"):
        latest.setdefault(qid, {})[name] = value
    out = []
    for qid, raw in rows:
        row = json.loads(raw)
        edit = latest.get(qid, {})
        out.append(Question(
            qid=qid, question=edit.get("question", str(row.get("question", ""))),
            answer=edit.get("answer", str(row.get("answer") or "")),
            dropped=edit.get("dropped", "0") == "1",
            unanswerable=edit.get("unanswerable",
                                  "0" if row.get("answerable", True) is not False else "1")
            == "1",
            row=row, done=edit.get("done", "0") == "1"))
    return out


def _latest_labels(rows: Iterable[tuple[str, str, int, int, Label]],
                   ) -> dict[str, dict[tuple[str, int, int], Label]]:
    out: dict[str, dict[tuple[str, int, int], Label]] = {}
    for q, doc, start, end, label in rows:
        out.setdefault(q, {})[(doc, start, end)] = label
    return out


def open_judging(collection: str, set_name: str) -> JudgingStore:
    return JudgingStore(judging_path(collection, set_name))
