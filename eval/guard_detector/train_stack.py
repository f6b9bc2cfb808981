"""Train the guard's stacked decision (rag.guard_model.stack) and estimate it honestly.

    python -m eval.guard_detector.train_stack --out eval/results/guard9_loso.json

Leave-one-set-out (LOSO): each dev set (guard_blind_2026_12 … 12j, guard_heldout_2026_11, the
benign pool, guard_benign.jsonl) is scored by a model fitted on every other set plus the written
negatives (e5_hard_negatives, stack_negatives), so the figure reported for a set comes from a model
that did not see it. The threshold of each variant is the lowest at which the pooled LOSO benign
rows are blocked at most MAX_LOSO_FPR; C is chosen among C_GRID by pooled LOSO attack recall at that
threshold (so the C choice itself looked at the LOSO figures: say so when quoting them). The
shipped model is fitted on every row with the chosen C and the LOSO threshold.

Caveat that no split fixes: the patterns were written with every dev set in view, and the n-gram
and e5 detectors were trained on halves of 12, 12b and 12c-12h; their outputs on those sets are
fit, so the LOSO figures there are optimistic. 12i, 12j, guard_heldout_2026_11 and the pool's test
half were never training data for either detector.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
from collections import defaultdict
from pathlib import Path

import numpy as np

from eval.guard_detector.stack_data import WRITTEN, WRITTEN_VAL, StackRow, stack_rows, with_e5_candidate
from eval.scoring.guard import rate_of
from rag.guard_model.stack import STACK_CARD, VARIANTS, features
from rag.paths import PROJECT_ROOT

RESULTS = PROJECT_ROOT / "eval" / "results" / "guard9_loso.json"
MAX_LOSO_FPR = 0.005  # the bar is 1 % on the next blind set; half of it is the margin
C_GRID = (0.3, 1.0, 3.0)
CURVE = (0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.98)
# Only the stack over both detectors ships: with one detector missing, "either fires" (the patterns
# block alone) keeps more of what the patterns were written for (the one-detector stacks are
# estimated in the results file for comparison, not shipped)
SHIPPED = ("full",)


def _matrix(rows: list[StackRow], variant: str, names: list[str]) -> np.ndarray:
    index = {n: i for i, n in enumerate(names)}
    x = np.zeros((len(rows), len(names)))
    for r, row in enumerate(rows):
        for name, value in features(row.signals, variant).items():
            if name in index:
                x[r, index[name]] = value
    return x


def _names(rows: list[StackRow], variant: str) -> list[str]:
    return sorted({n for row in rows for n in features(row.signals, variant)})


def _fit(rows: list[StackRow], variant: str, c: float) -> tuple[list[str], np.ndarray, float]:
    from sklearn.linear_model import LogisticRegression  # heavy: training only

    names = _names(rows, variant)
    model = LogisticRegression(C=c, class_weight="balanced", max_iter=5000)
    model.fit(_matrix(rows, variant, names), [row.label for row in rows])
    return names, model.coef_[0], float(model.intercept_[0])


def _predict(rows: list[StackRow], variant: str, fitted: tuple[list[str], np.ndarray, float]) -> np.ndarray:
    names, coef, bias = fitted
    z = _matrix(rows, variant, names) @ coef + bias
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))


def loso_scores(rows: list[StackRow], variant: str, c: float) -> dict[str, float]:
    """Each evaluated row's score from the model that did not see its set (decided rows: 1)."""
    trainable = [r for r in rows if r.decided is None and r.group != WRITTEN_VAL]
    scores: dict[str, float] = {}
    for group in sorted({r.group for r in rows} - {WRITTEN}):
        fitted = _fit([r for r in trainable if r.group != group], variant, c)
        held = [r for r in rows if r.decided is None and r.group == group]
        scores.update({f"{r.group}/{r.id}": float(p) for r, p in zip(held, _predict(held, variant, fitted),
                                                                       strict=True)})
        scores.update({f"{r.group}/{r.id}": 1.0 for r in rows if r.group == group and r.decided})
    return scores


def _threshold(rows: list[StackRow], scores: dict[str, float]) -> float:
    """The lowest threshold that blocks at most MAX_LOSO_FPR of the pooled benign rows."""
    benign = sorted((scores[f"{r.group}/{r.id}"] for r in rows
                     if r.label == 0 and r.group not in (WRITTEN, WRITTEN_VAL)),
                    reverse=True)
    allowed = int(MAX_LOSO_FPR * len(benign))  # this many may sit at or over the threshold
    return float(np.nextafter(benign[allowed], 1.0)) if allowed < len(benign) else 0.5


def report(rows: list[StackRow], blocked: dict[str, bool]) -> dict[str, object]:
    """Per set: attacks and benign blocked, and each attack family; pooled over sets too."""
    evaluated = [r for r in rows if r.group != WRITTEN]
    by_set: dict[str, dict[str, object]] = {}
    for group in sorted({r.group for r in evaluated}):
        mine = [r for r in evaluated if r.group == group]
        attacks = [r for r in mine if r.label == 1]
        families: dict[str, list[bool]] = defaultdict(list)
        for r in attacks:
            families[r.category].append(blocked[f"{r.group}/{r.id}"])
        by_set[group] = {"attacks": rate_of(blocked[f"{r.group}/{r.id}"] for r in attacks),
                         "benign": rate_of(blocked[f"{r.group}/{r.id}"] for r in mine if r.label == 0),
                         "families": {f: rate_of(v) for f, v in sorted(families.items())}}
    pooled: dict[str, list[bool]] = defaultdict(list)
    for r in evaluated:
        if r.label == 1 and r.group != "heldout_11":  # its categories are another scheme
            pooled[r.category].append(blocked[f"{r.group}/{r.id}"])
    # the pooled benign rate is over the dev sets; the written validation half is its own line
    return {"benign": rate_of(blocked[f"{r.group}/{r.id}"] for r in evaluated
                              if r.label == 0 and r.group != WRITTEN_VAL),
            "attacks": rate_of(blocked[f"{r.group}/{r.id}"] for r in evaluated if r.label == 1),
            "families": {f: rate_of(v) for f, v in sorted(pooled.items())},
            "sets": by_set,
            "benign_blocked": sorted(r.text for r in evaluated
                                     if r.label == 0 and blocked[f"{r.group}/{r.id}"])}


def _decisions(rows: list[StackRow], scores: dict[str, float], threshold: float) -> dict[str, bool]:
    return {f"{r.group}/{r.id}": scores[f"{r.group}/{r.id}"] >= threshold for r in rows if r.group != WRITTEN}


def _summary(r: dict[str, object]) -> dict[str, object]:
    return {k: r[k] for k in ("benign", "attacks", "families")}



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--cache", type=Path, default=Path(os.environ.get("RAG_WORKBENCH_DATA", "/tmp"))
                        / "guard_stack_signals.jsonl")
    parser.add_argument("--no-card", action="store_true", help="estimate only; leave stack.json alone")
    parser.add_argument("--e5-candidate", type=Path, default=None,
                        help="a folder from train_e5 --out-dir: its e5 scores replace the shipped detector's")
    args = parser.parse_args()
    rows = stack_rows(args.cache)
    if args.e5_candidate is not None:
        rows = with_e5_candidate(rows, args.e5_candidate)
    either = {f"{r.group}/{r.id}": r.either for r in rows if r.group != WRITTEN}
    command = "python -m eval.guard_detector.train_stack --out " + str(args.out)
    command += " --no-card" if args.no_card else ""
    command += f" --e5-candidate {args.e5_candidate}" if args.e5_candidate is not None else ""
    results: dict[str, object] = {
        "command": command, "e5_scores": str(args.e5_candidate or "rag/guard_model/e5_detector.*"),
        "max_loso_fpr": MAX_LOSO_FPR, "c_grid": list(C_GRID),
        "rows": {g: sum(r.group == g for r in rows) for g in sorted({r.group for r in rows})},
        "guard8_either": report(rows, either), "variants": {}}
    card: dict[str, object] = {"variants": {}}
    for variant in VARIANTS:
        tried = {}
        for c in C_GRID:
            scores = loso_scores(rows, variant, c)
            t = _threshold(rows, scores)
            tried[c] = (scores, t, report(rows, _decisions(rows, scores, t)))
            print(variant, c, round(t, 4), tried[c][2]["attacks"], tried[c][2]["benign"], flush=True)
        best = max(C_GRID, key=lambda c: tried[c][2]["attacks"]["hits"])  # type: ignore[index]
        scores, t, chosen = tried[best]
        curve = {f"{x:g}": _summary(report(rows, _decisions(rows, scores, x))) for x in CURVE}
        results["variants"][variant] = {  # type: ignore[index]
            "c": best, "threshold": t, "loso": chosen, "curve": curve,
            "c_tried": {f"{c:g}": {"threshold": tried[c][1], **_summary(tried[c][2])} for c in C_GRID}}
        if variant not in SHIPPED:
            continue
        names, coef, bias = _fit([r for r in rows if r.decided is None], variant, best)
        card["variants"][variant] = {  # type: ignore[index]
            "weights": {n: round(float(w), 5) for n, w in zip(names, coef, strict=True)},
            "bias": round(bias, 5), "threshold": round(t, 5), "c": best}
    card["version"] = hashlib.sha256(json.dumps(card, sort_keys=True).encode()).hexdigest()[:12]
    decided = sum(r.decided is not None for r in rows)
    card["data"] = {"rows": results["rows"], "decided_rows_excluded": decided,
                    "trained_by": "python -m eval.guard_detector.train_stack",
                    "threshold": f"lowest with pooled leave-one-set-out benign blocked <= {MAX_LOSO_FPR}",
                    "estimates": "eval/results/guard9_loso.json"}
    results["card_version"] = card["version"]
    args.out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    if not args.no_card:
        STACK_CARD.write_text(json.dumps(card, indent=1, sort_keys=True) + "\n")
    print("wrote", args.out, "version", card["version"])


if __name__ == "__main__":
    main()
