"""Judgments to and from QA JSONL, and how far judging has come.

Export: one row per question not dropped. Passages judged relevant become the row's `spans`
(relevance is a span of the collection's kept text, so the set survives re-chunking); passages
judged not relevant go under `judged_nonrelevant`, so eval.scoring.judged can tell a passage
judged not relevant from one nobody looked at. A question marked "not answerable from these
documents" becomes an `"answerable": false` row. Provenance says "judged" and what the row was
before. Import reads such a file back as judgments of the importing session.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eval.data.qa import Span, item_from_row
from eval.data.shapes import DatasetError
from eval.judging.store import JudgingStore, Label, Passage, Question, Snapshot

NONRELEVANT = "judged_nonrelevant"  # row field: spans judged not relevant


@dataclass(frozen=True)
class Progress:
    judged: int
    total: int
    relevant_found: int  # questions with at least one passage judged relevant

    def describe(self) -> str:
        return f"{self.judged} of {self.total} judged"


def is_judged(question: Question, pool: Sequence[Passage],
              labels: Mapping[tuple[str, int, int], Label]) -> bool:
    """Dropped, marked not answerable, said judged by the person ("done"), or every pooled
    passage has a label (skip included)."""
    if question.dropped or question.unanswerable or question.done:
        return True
    return bool(pool) and all(p.key in labels for p in pool)


def progress(store: JudgingStore | Snapshot) -> Progress:
    snap = store.snapshot() if isinstance(store, JudgingStore) else store
    judged = sum(is_judged(q, snap.pool(q.qid), snap.labels_of(q.qid)) for q in snap.questions)
    found = sum(any(v == "relevant" for v in snap.labels_of(q.qid).values())
                for q in snap.questions)
    return Progress(judged, len(snap.questions), found)


def judged_map(snap: Snapshot) -> dict[str, bool]:
    """{qid: judged} for every question of the snapshot."""
    return {q.qid: is_judged(q, snap.pool(q.qid), snap.labels_of(q.qid)) for q in snap.questions}


def seed_from_rows(store: JudgingStore, rows: Sequence[Mapping[str, Any]], session: str) -> int:
    """A set saved by an export (rows judged: relevant spans, judged_nonrelevant) opened with no
    judging of its own: its labels become judgments, so they show as judged, not lost. Returns
    how many were recorded (0 when the store has judgments already or no row was judged)."""
    judged = [r for r in rows if isinstance(r.get("provenance"), Mapping)
              and r["provenance"].get("method") == "judged"]
    if not judged or store.has_judgments():
        return 0
    return import_rows(store, judged, session)


def _span(key: tuple[str, int, int], texts: Mapping[tuple[str, int, int], str]) -> dict[str, Any]:
    doc, start, end = key
    span: dict[str, Any] = {"doc": doc, "start": start, "end": end}
    if texts.get(key):
        span["text"] = texts[key]
    return span


def export_rows(store: JudgingStore) -> list[dict[str, Any]]:
    """The judged set as QA JSONL rows (see the module docstring)."""
    labels = store.labels()
    rows = []
    for q in store.questions():
        if q.dropped:
            continue
        marks = {k: v for k, v in labels.get(q.qid, {}).items() if v != "skip"}
        edited = (q.question, q.answer, q.unanswerable) != (
            q.row.get("question"), q.row.get("answer") or "", q.row.get("answerable") is False)
        if not marks and not edited:
            rows.append({**q.row, "id": q.qid})  # not judged yet: as it was, labels kept
            continue
        rows.append(_judged_row(q, marks, {p.key: p.text for p in store.pool(q.qid)}))
    return rows


def _judged_row(q: Question, marks: Mapping[tuple[str, int, int], Label],
                texts: Mapping[tuple[str, int, int], str]) -> dict[str, Any]:
    """A judged question's row. Its earlier spans (mined, generated) stay unless a passage
    overlapping them was judged not relevant: the judge overruled that label."""
    before = q.row.get("provenance") if isinstance(q.row.get("provenance"), Mapping) else {}
    relevant = sorted(k for k, v in marks.items() if v == "relevant")
    nonrelevant = sorted(k for k, v in marks.items() if v == "not_relevant")
    kept = [dict(span) for span in q.row.get("spans") or []
            if not any(d == span["doc"] and s < span["end"] and span["start"] < e
                       for d, s, e in nonrelevant)
            and (span["doc"], span["start"], span["end"]) not in relevant]
    row: dict[str, Any] = {"id": q.qid, "question": q.question}
    if q.unanswerable:
        row["answerable"] = False
    else:
        if q.answer:
            row["answer"] = q.answer
        row["spans"] = [_span(k, texts) for k in relevant] + kept
    row[NONRELEVANT] = [_span(k, texts) for k in nonrelevant]
    row["provenance"] = {"method": "judged", "was": before.get("method", "unlabelled"),
                         "relevant": len(relevant), "not_relevant": len(nonrelevant),
                         "kept_earlier_spans": 0 if q.unanswerable else len(kept)}
    return row


def to_jsonl(rows: Iterable[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(dict(r), ensure_ascii=False) + "\n" for r in rows)


def nonrelevant_spans(rows: Iterable[Mapping[str, Any]]) -> dict[str, tuple[Span, ...]]:
    """{qid: spans judged not relevant} from exported rows (what EvalSet.nonrelevant takes)."""
    out: dict[str, tuple[Span, ...]] = {}
    for line, row in enumerate(rows, start=1):
        raw = row.get(NONRELEVANT) or []
        if raw:
            qid = str(row.get("id") or f"q{line}")
            out[qid] = tuple(Span(str(s["doc"]), int(s["start"]), int(s["end"]),
                                  str(s.get("text") or "")) for s in raw)
    return out


def read_jsonl(text: str, where: str) -> list[dict[str, Any]]:
    """Rows of a QA JSONL file, each validated as eval/data/qa.py reads it (DatasetError names the
    line), before anything is imported."""
    rows = []
    for line, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise DatasetError(where, f"not valid JSON ({exc.msg})", line) from None
        if not isinstance(row, dict):
            raise DatasetError(where, "each line must be a JSON object", line)
        item_from_row(row, where, line)
        for i, span in enumerate(row.get(NONRELEVANT) or []):
            if not isinstance(span, Mapping) or not {"doc", "start", "end"} <= set(span):
                raise DatasetError(where, "must be an object {doc, start, end}", line,
                                   f"{NONRELEVANT}[{i}]")
        rows.append(row)
    return rows


def import_rows(store: JudgingStore, rows: Sequence[Mapping[str, Any]], session: str) -> int:
    """Add the rows' questions (new ones only) and record their spans as this session's
    judgments (pooled too, so they are shown); returns how many judgments were recorded."""
    store.add_questions(rows)
    count = 0
    for line, row in enumerate(rows, start=1):
        qid = str(row.get("id") or f"q{line}")
        for field, label in (("spans", "relevant"), (NONRELEVANT, "not_relevant")):
            spans = row.get(field) or []
            store.add_pool(qid, [Passage(str(s["doc"]), int(s["start"]), int(s["end"]),
                                         str(s.get("text") or ""), {"imported": 0})
                                 for s in spans])
            for s in spans:
                store.judge(qid, (str(s["doc"]), int(s["start"]), int(s["end"])), label, session)
                count += 1
        if row.get("answerable") is False:
            store.edit(qid, "unanswerable", True, session)
    return count
