"""The learned judge's fill, saved with a judged set: each open question's row lists the pooled
passages nobody judged with the judge's probability that they are relevant
(`"judge_filled": [{"doc", "start", "end", "p"}]`), and its provenance names the judge and its
out-of-fold agreement. A filled passage is never a label: `spans` and `judged_nonrelevant` stay
the person's; Evaluate reads the fill separately (eval.scoring.filled)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from eval.data.qa import Span
from eval.judging.live import JudgeState, LivePool

FILLED = "judge_filled"


def with_judge_fill(rows: Sequence[Mapping[str, Any]], live: LivePool,
                    judge: JudgeState) -> list[dict[str, Any]]:
    """The rows with the judge's fill of their unjudged pooled passages (rows as they were when
    there is no judge yet)."""
    if judge.probabilities is None:
        return [dict(r) for r in rows]
    by_question: dict[str, list[dict[str, Any]]] = {}
    for i, (qid, (doc, start, end)) in enumerate(live.where):
        if i not in live.judged:
            by_question.setdefault(qid, []).append(
                {"doc": doc, "start": start, "end": end,
                 "p": round(float(judge.probabilities[i]), 4)})
    agreement = judge.agreement.as_json() if judge.agreement is not None else None
    out = []
    for row in rows:
        row = dict(row)
        filled = by_question.get(str(row.get("id")))
        if filled:
            row[FILLED] = filled
            provenance = dict(row.get("provenance") or {})
            provenance["judge"] = {"by": "learned judge", "agreement": agreement}
            row["provenance"] = provenance
        out.append(row)
    return out


def filled_spans(rows: Sequence[Mapping[str, Any]]) -> dict[str, tuple[tuple[Span, float], ...]]:
    """{qid: ((span, P(relevant)), …)} from saved rows' judge fill."""
    out: dict[str, tuple[tuple[Span, float], ...]] = {}
    for line, row in enumerate(rows, start=1):
        raw = row.get(FILLED) or []
        if raw:
            out[str(row.get("id") or f"q{line}")] = tuple(
                (Span(str(s["doc"]), int(s["start"]), int(s["end"]), ""), float(s["p"]))
                for s in raw)
    return out
