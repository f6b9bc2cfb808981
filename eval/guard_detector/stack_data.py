"""Rows for the guard's stacked decision (rag.guard_model.stack): every dev set's attacks and benign
questions, each with the set it came from (the unit of leave-one-set-out), and what the guard's
detectors said about it (rag.query.guard: pattern families, n-gram and e5 probabilities), cached
by text so a second run reads the cache.

Sets: datasets/guard_blind_2026_12 … 12j, guard_heldout_2026_11 (attacks + benign), the benign
pool and guard_benign.jsonl (benign only). Written negatives (e5_hard_negatives, stack_negatives)
are training rows only: they are never a held-out set."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from eval.guard_detector.e5_hard_negatives import e5_hard_negatives
from eval.guard_detector.stack_negatives import stack_negatives
from eval.guard_detector.work_requests import split_of, work_requests
from rag.guard_model.stack import ALWAYS_BLOCK, Signals, family_name
from rag.injection_mentions import mask_for_detector
from rag.paths import PROJECT_ROOT
from rag.query.guard import guard
from rag.settings.query import GuardConfig

DATASETS = PROJECT_ROOT / "datasets"
BLIND = ("12", "12b", "12c", "12d", "12e", "12f", "12g", "12h", "12i", "12j", "12k")
WRITTEN = "written"  # training-only rows
WRITTEN_VAL = "written_val"  # the validation half of work_requests: scored, never trained on


@dataclass(frozen=True)
class StackRow:
    group: str  # the set: the unit held out
    id: str
    text: str
    label: int  # 1 attack, 0 benign
    category: str
    decided: bool | None  # blocked whatever the score (too long, empty, smuggling); None: the score decides
    either: bool  # guard8's decision ("either fires")
    signals: Signals


def _jsonl(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def source_rows() -> list[tuple[str, str, str, int, str]]:
    """(group, id, text, label, category) for every row."""
    rows: list[tuple[str, str, str, int, str]] = []
    folders = [(s, DATASETS / f"guard_blind_2026_{s}") for s in BLIND]
    folders.append(("heldout_11", DATASETS / "guard_heldout_2026_11"))
    for group, folder in folders:
        for row in _jsonl(folder / "attacks.jsonl"):
            rows.append((group, row["id"], row["text"], 1, row.get("category", "attack")))
        for row in _jsonl(folder / "benign.jsonl"):
            rows.append((group, row["id"], row["text"], 0, "benign"))
    for n, row in enumerate(_jsonl(DATASETS / "guard_benign_pool.jsonl")):
        rows.append(("pool", f"pool-{n}", row["text"], 0, "benign"))
    for row in _jsonl(DATASETS / "guard_benign.jsonl"):
        rows.append(("guard_benign", row["id"], row["text"], 0, "benign"))
    # a written row that happens to equal a dev row (12k has "Convert 72 degrees Fahrenheit to
    # Celsius.", written for guard9 before 12k existed) would train on a held-out set's row: dropped
    dev = {text.strip().lower() for _, _, text, _, _ in rows}
    for n, text in enumerate(e5_hard_negatives() + stack_negatives()):
        if text.strip().lower() not in dev:
            rows.append((WRITTEN, f"written-{n}", text, 0, "benign"))
    for n, text in enumerate(work_requests()):
        group = WRITTEN if split_of(text) == "train" else WRITTEN_VAL
        rows.append((group, f"work-{n}", text, 0, "benign"))
    return rows


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


def stack_rows(cache: Path) -> list[StackRow]:
    """Every row with its signals; the guard runs only on texts the cache does not hold."""
    cfg = GuardConfig(decision="either", rate_limit=None)
    known: dict[str, dict[str, object]] = {}
    if cache.exists():
        known = {r["key"]: r for r in map(json.loads, cache.read_text().splitlines())}
    rows: list[StackRow] = []
    with cache.open("a") as out:
        for group, id_, text, label, category in source_rows():
            key = _key(text)
            if key not in known:
                v = guard(text, cfg)
                known[key] = {"key": key, "verdict": v.verdict, "allowed": v.allowed,
                              "signals": asdict(v.signals)}
                out.write(json.dumps(known[key], ensure_ascii=False) + "\n")
                out.flush()
            seen = known[key]
            sig = dict(seen["signals"])  # type: ignore[call-overload]
            # a cached 0.0 is the n-gram detector's "no view had enough words" (guard.NO_VIEW)
            learned = None if sig["learned"] in (None, 0.0) else sig["learned"]
            signals = Signals(str(sig["text"]), tuple(sig["families"]), learned, sig["e5"], sig["extraction"])
            hard = any(family_name(f) in ALWAYS_BLOCK for f in signals.families)
            decided = True if seen["verdict"] in ("too_long", "empty") or hard else None
            rows.append(StackRow(group, id_, text, label, category, decided, not seen["allowed"], signals))
    return rows


def with_e5_candidate(rows: list[StackRow], folder: Path) -> list[StackRow]:
    """The rows with the e5 score a candidate detector (folder/e5_detector.npz + .json, written by
    train_e5 --out-dir) gives: the same head of the same masked text the guard embeds (cached
    by e5_data.embed), scored with the candidate's weights. A row the shipped detector did not
    score (too short, decided) keeps None; `either` stays the shipped guard's decision."""
    from eval.guard_detector.e5_data import embed  # the encoder: only when rescoring

    card = json.loads((folder / "e5_detector.json").read_text())
    with np.load(folder / "e5_detector.npz") as data:
        coef = data["coef"].astype(np.float32)
    scored = [n for n, r in enumerate(rows) if r.signals.e5 is not None]
    x = embed([mask_for_detector(rows[n].signals.text) for n in scored], prepare=str)
    p = 1.0 / (1.0 + np.exp(-np.clip(x @ coef + float(card["bias"]), -30, 30)))
    out = list(rows)
    for n, value in zip(scored, p, strict=True):
        out[n] = replace(rows[n], signals=replace(rows[n].signals, e5=round(float(value), 4)))
    return out
