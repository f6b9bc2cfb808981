"""A person's review of mined questions before the set is trusted: keep / fix / drop per row,
kept with the collection, the kept share per mining rule, and rules switched off for that
collection when a person rejects them often.

Verdicts live beside the set: `<collection>/testsets/NAME.review.json` ({row id: {"verdict",
"rule", "question", "fixed", "at"}}); the rules switched off live in
`<collection>/testsets/.mining_rules.json` and `eval.testsets.mine.mine_collection` leaves their
rows out (saying so in its skip counts). Writes are atomic (temporary file renamed over).
"""

from __future__ import annotations

import json
import os
import random
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from eval.judging.store import judging_path, open_judging
from eval.testsets.quality import row_rule
from eval.testsets.store import read_rows, save_set, set_path

Verdict = Literal["keep", "fix", "drop"]
VERDICTS: tuple[Verdict, ...] = ("keep", "fix", "drop")
REVIEW_SIZE = 20
MIN_REVIEWED = 3  # a rule is judged on at least this many of its rows
MAX_DROP_SHARE = 0.5  # dropped more often than this: the rule is switched off
RULES_FILE = ".mining_rules.json"


@dataclass(frozen=True)
class RuleShare:
    rule: str
    reviewed: int
    kept: int  # kept as mined
    fixed: int  # kept with the question rewritten
    dropped: int

    @property
    def kept_share(self) -> float:
        """Share of the rule's reviewed rows a person kept (as mined or fixed)."""
        return (self.kept + self.fixed) / self.reviewed if self.reviewed else 0.0

    @property
    def rejected(self) -> bool:
        return self.reviewed >= MIN_REVIEWED and self.dropped / self.reviewed > MAX_DROP_SHARE


def review_path(collection: str, name: str) -> Path:
    path = set_path(collection, name)
    return path.with_name(f"{name}.review.json")


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump(data, out, ensure_ascii=False, indent=1)
    os.replace(temp, path)


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def verdicts(collection: str, name: str) -> dict[str, dict[str, Any]]:
    return _read(review_path(collection, name))


def review_sample(rows: Sequence[Mapping[str, Any]], n: int = REVIEW_SIZE,
                  seed: int = 0) -> list[Mapping[str, Any]]:
    """`n` mined rows drawn with `seed` (the same rows every time for a set)."""
    mined = [r for r in rows if isinstance(r.get("provenance"), Mapping)
             and r["provenance"].get("method") == "mined"]
    return random.Random(seed).sample(mined, min(n, len(mined)))


def record(collection: str, name: str, row: Mapping[str, Any], verdict: Verdict,
           fixed: str | None = None) -> None:
    """Store a verdict for `row` (a fix needs the rewritten question)."""
    if verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}, got {verdict!r}")
    if verdict == "fix" and not (fixed or "").strip():
        raise ValueError("a fix needs the rewritten question")
    path = review_path(collection, name)
    stored = _read(path)
    stored[str(row["id"])] = {"verdict": verdict, "rule": row_rule(row), "question": row["question"],
                              "fixed": (fixed or "").strip() or None,
                              "at": datetime.now(UTC).isoformat(timespec="seconds")}
    _write(path, stored)


def shares(stored: Mapping[str, Mapping[str, Any]]) -> list[RuleShare]:
    """Kept share per rule over the stored verdicts, most reviewed first."""
    counts: dict[str, dict[str, int]] = {}
    for v in stored.values():
        counts.setdefault(str(v["rule"]), dict.fromkeys(VERDICTS, 0))[str(v["verdict"])] += 1
    out = [RuleShare(rule, sum(c.values()), c["keep"], c["fix"], c["drop"]) for rule, c in counts.items()]
    return sorted(out, key=lambda s: (-s.reviewed, s.rule))


def rules_off(collection: str) -> set[str]:
    """Mining rules a person's reviews switched off for `collection`."""
    return set(_read(set_path(collection, "x").with_name(RULES_FILE)).get("off", []))


def update_rules(collection: str, name: str) -> set[str]:
    """Switch off, for the collection, the rules this set's review rejects often (and back on
    those it no longer does); returns the rules now off."""
    path = set_path(collection, "x").with_name(RULES_FILE)
    stored = _read(path)
    by_set = dict(stored.get("by_set", {}))
    by_set[name] = sorted(s.rule for s in shares(verdicts(collection, name)) if s.rejected)
    off = sorted({rule for rules in by_set.values() for rule in rules})
    _write(path, {"off": off, "by_set": by_set})
    return set(off)


def apply_review(collection: str, name: str) -> dict[str, int]:
    """Rewrite the stored set with the verdicts: dropped rows out, fixed questions in (their
    provenance says "fixed_by": "review"). Returns how many rows of each verdict it applied."""
    stored = verdicts(collection, name)
    rows, applied = [], dict.fromkeys(VERDICTS, 0)
    for row in read_rows(collection, name):
        v = stored.get(str(row.get("id")))
        if v is not None:
            applied[str(v["verdict"])] += 1
            if v["verdict"] == "drop":
                continue
            if v["verdict"] == "fix" and v.get("fixed"):
                row = {**row, "question": v["fixed"],
                       "provenance": {**row.get("provenance", {}), "fixed_by": "review",
                                      "mined_question": row["question"]}}
        rows.append(row)
    save_set(collection, name, rows)
    _tell_judging(collection, name, stored)
    return applied


def _tell_judging(collection: str, name: str, stored: Mapping[str, Mapping[str, Any]]) -> None:
    """The set's judging file keeps its own copy of every question (a save exports from it), so
    the review's drops and fixes go there too as edits, or a later save would bring them back."""
    if not judging_path(collection, name).is_file():
        return
    store = open_judging(collection, name)
    for qid, v in stored.items():
        if v["verdict"] == "drop":
            store.edit(qid, "dropped", True, "review")
        elif v["verdict"] == "fix" and v.get("fixed"):
            store.edit(qid, "question", str(v["fixed"]), "review")
