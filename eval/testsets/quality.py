"""What a person should look at before trusting a mined (or generated) test set: rows per rule,
a seeded sample to read, and how much of each question's wording its answer span repeats.

Lexical overlap is the share of a question's content words (lower-cased, stop words and
one-letter words left out) that occur in its span. A set whose questions mostly repeat their
spans' words rewards exact-match retrieval (BM25) over systems that find paraphrases; a
question sharing nothing with its span may be mislabelled. Both ends are reported.
"""

from __future__ import annotations

import random
import re
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

SAMPLE = 20
HIGH_OVERLAP = 0.8  # most of the question's words are in the span
_WORD = re.compile(r"[a-z0-9][a-z0-9_.+-]*[a-z0-9]|[a-z0-9]")
STOP_WORDS = frozenset("""
a an the and or but if then of to in on at by for with from as is are was were be been being do
does did done how what why when where which who whom whose can could should would will shall may
might must i me my we our you your it its this that these those there here not no yes so than
into about over under up down out any all some each one get got have has had use using used
""".split())


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS and len(w) > 1}


def lexical_overlap(question: str, span: str) -> float:
    """Share of the question's content words that occur in the span (0.0 for none to compare)."""
    asked = content_words(question)
    return len(asked & content_words(span)) / len(asked) if asked else 0.0


def row_rule(row: Mapping[str, Any]) -> str:
    prov = row.get("provenance")
    if not isinstance(prov, Mapping):
        return "unlabelled"
    return str(prov.get("rule") or prov.get("method") or "unlabelled")


def _span_text(row: Mapping[str, Any]) -> str:
    return " ".join(str(s.get("text", "")) for s in row.get("spans") or ())


def quality_report(rows: Sequence[Mapping[str, Any]], sample: int = SAMPLE, seed: int = 0) -> dict[str, Any]:
    """Rows per rule, lexical overlap (overall and per rule), and `sample` rows drawn with `seed`
    (question, rule, the start of the span) to read."""
    answerable = [r for r in rows if r.get("answerable", True) and r.get("spans")]
    overlaps = {str(r.get("id")): lexical_overlap(str(r["question"]), _span_text(r)) for r in answerable}
    by_rule: dict[str, list[float]] = {}
    for row in answerable:
        by_rule.setdefault(row_rule(row), []).append(overlaps[str(row.get("id"))])
    values = list(overlaps.values())
    drawn = random.Random(seed).sample(list(answerable), min(sample, len(answerable)))
    return {
        "rows": len(rows), "answerable_with_span": len(answerable),
        "by_rule": dict(Counter(row_rule(r) for r in rows).most_common()),
        "overlap": {
            "mean": round(statistics.fmean(values), 3) if values else None,
            "median": round(statistics.median(values), 3) if values else None,
            "share_high": round(sum(v >= HIGH_OVERLAP for v in values) / len(values), 3) if values else None,
            "share_none": round(sum(v == 0 for v in values) / len(values), 3) if values else None,
            "by_rule": {rule: round(statistics.fmean(v), 3) for rule, v in sorted(by_rule.items())},
        },
        "sample": {"seed": seed, "rows": [
            {"id": r.get("id"), "question": r["question"], "rule": row_rule(r),
             "overlap": round(overlaps[str(r.get("id"))], 2),
             "span_start": " ".join(_span_text(r).split())[:300]} for r in drawn]},
    }


def describe(report: Mapping[str, Any]) -> str:
    """The report in words, as the CLI prints it and the app shows it."""
    overlap = report["overlap"]
    rules = ", ".join(f"{rule} {n}" for rule, n in report["by_rule"].items())
    if overlap["mean"] is None:
        return f"{report['rows']} rows ({rules}); no row with a span to compare."
    return (f"{report['rows']} rows ({rules}). Question words found in the answer span: "
            f"mean {overlap['mean']:.0%}, median {overlap['median']:.0%}; {overlap['share_high']:.0%} "
            f"of questions repeat ≥ {HIGH_OVERLAP:.0%} of their words from the span (easy for "
            f"exact-word retrieval), {overlap['share_none']:.0%} share none (check their labels).")
