"""Scores the query guard on a labelled attack set and a benign set: block rate and false-positive
rate with Wilson 95% intervals, per split, per category and per language, plus every miss and
false alarm.

Splits: in datasets/guard_attacks.jsonl both `dev` and `heldout` were in view while the detectors
were written, so both are development data now; datasets/guard_heldout_2026_11/ is the held-out
set, written blind after the detectors were frozen (its rows carry no split: they take the folder's
name)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from eval.data.shapes import DatasetError
from rag.paths import PROJECT_ROOT
from rag.query.guard import guard
from rag.settings.query import GuardConfig

ATTACKS = PROJECT_ROOT / "datasets" / "guard_attacks.jsonl"
BENIGN = PROJECT_ROOT / "datasets" / "guard_benign.jsonl"
HELDOUT = PROJECT_ROOT / "datasets" / "guard_heldout_2026_11"
HELDOUT_ATTACKS, HELDOUT_BENIGN = HELDOUT / "attacks.jsonl", HELDOUT / "benign.jsonl"


@dataclass(frozen=True)
class Prompt:
    id: str
    text: str
    split: str
    category: str = "benign"
    language: str = "en"


@dataclass(frozen=True)
class Rate:
    """`hits` of `n`, as a share with its Wilson 95% interval."""

    hits: int
    n: int
    low: float
    high: float

    @property
    def value(self) -> float:
        return self.hits / self.n if self.n else 0.0

    def __str__(self) -> str:
        return f"{self.value:.1%} [{self.low:.1%}, {self.high:.1%}] ({self.hits}/{self.n})"


@dataclass(frozen=True)
class GuardScore:
    block_rate: dict[str, Rate]  # split ("all", "dev", "heldout") -> share of attacks blocked
    false_positive_rate: dict[str, Rate]  # split -> share of benign questions blocked
    by_category: dict[str, Rate]  # attack category -> share blocked (all splits)
    missed: tuple[Prompt, ...]
    false_alarms: tuple[tuple[Prompt, str], ...]  # benign prompt, the guard's reason
    by_language: dict[str, Rate] = field(default_factory=dict)  # attack language -> share blocked
    benign_by_category: dict[str, Rate] = field(default_factory=dict)  # -> share of benign blocked
    benign_by_language: dict[str, Rate] = field(default_factory=dict)

    def as_json(self) -> dict[str, object]:
        rates = {k: {name: {**asdict(r), "value": r.value} for name, r in getattr(self, k).items()}
                 for k in ("block_rate", "false_positive_rate", "by_category", "by_language",
                           "benign_by_category", "benign_by_language")}
        return {**rates, "missed": [asdict(p) for p in self.missed],
                "false_alarms": [{**asdict(p), "reason": why} for p, why in self.false_alarms]}


def wilson(hits: int, n: int, z: float = 1.96) -> Rate:
    """Wilson score interval (Wilson 1927): stays inside [0, 1] and sane at 0 or n hits."""
    if n == 0:
        return Rate(0, 0, 0.0, 0.0)
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return Rate(hits, n, max(0.0, centre - half), min(1.0, centre + half))


def rate_of(flags: Iterable[bool]) -> dict[str, float | int]:
    """The share of true flags with its Wilson interval, as a results file stores it."""
    found = list(flags)
    r = wilson(sum(found), len(found))
    return {"hits": r.hits, "n": r.n, "value": round(r.value, 4), "low": round(r.low, 4),
            "high": round(r.high, 4)}


def load_prompts(path: Path, split: str | None = None) -> tuple[Prompt, ...]:
    """JSONL rows with `id` and `text` (optionally `split`, `category`, `language`; a row without
    `split` takes `split`, else the file's folder name: e.g. a BEIR queries.jsonl, whose `_id` is
    the id); errors name the file and line."""
    prompts: list[Prompt] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise DatasetError(path, f"not UTF-8 (byte {exc.start}); re-save it as UTF-8") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            row = ({"split": split or path.parent.name, "id": row.get("_id"), **row}
                   if isinstance(row, dict) else row)
            prompt = Prompt(**{k: str(v) for k, v in row.items() if k in Prompt.__dataclass_fields__})
        except (json.JSONDecodeError, TypeError, AttributeError) as exc:
            raise DatasetError(path, f"not a prompt row with id, text, split ({exc})", number) from None
        if not prompt.text.strip():
            raise DatasetError(path, "is empty", number, "text")
        prompts.append(prompt)
    if not prompts:
        raise DatasetError(path, "no prompts")
    return tuple(prompts)


def _grouped(flags: Sequence[tuple[Prompt, bool]], key: str) -> dict[str, Rate]:
    names = sorted({getattr(p, key) for p, _ in flags})
    return {n: wilson(sum(hit for p, hit in flags if getattr(p, key) == n),
                      sum(getattr(p, key) == n for p, _ in flags)) for n in names}


def _by_split(flags: Sequence[tuple[Prompt, bool]]) -> dict[str, Rate]:
    splits = ["all", *sorted({p.split for p, _ in flags})]
    return {s: wilson(sum(hit for p, hit in flags if s in ("all", p.split)),
                      sum(s in ("all", p.split) for p, _ in flags)) for s in splits}


def score_guard(
    attacks: Iterable[Prompt], benign: Iterable[Prompt], cfg: GuardConfig | None = None
) -> GuardScore:
    """Run every prompt through the real guard (no user, so no rate limit) and count blocks."""
    cfg = cfg or GuardConfig()
    attack_flags = [(p, not guard(p.text, cfg).allowed) for p in attacks]
    verdicts = [(p, guard(p.text, cfg)) for p in benign]
    benign_flags = [(p, not v.allowed) for p, v in verdicts]
    return GuardScore(
        _by_split(attack_flags),
        _by_split(benign_flags),
        _grouped(attack_flags, "category"),
        tuple(p for p, hit in attack_flags if not hit),
        tuple((p, v.reason) for p, v in verdicts if not v.allowed),
        _grouped(attack_flags, "language"),
        _grouped(benign_flags, "category"),
        _grouped(benign_flags, "language"),
    )
