"""Train the learned injection detector (rag.guard_model) offline and write its weights, its
card (threshold, data, versions) and its metrics.

    python -m eval.guard_detector.train

Data: public injection/jailbreak prompts shipped inside PyPI packages (pinned in
requirements.txt): bastioncorpus 0.6.0 (its malicious and benign rows) and
jailbreak-corpus-mini-py 0.1.0 (malicious fixtures); benign questions: the dev half of
datasets/guard_benign_pool.jsonl. Nothing from the garak scanner (reserved for the independent
check), nothing from datasets/guard_attacks.jsonl (kept to test on).
Split: package rows by a hash of their text into train 60 % / validation 20 % / test 20 %; the
pool's dev questions into train / validation the same way. The threshold is the lowest one whose
validation false-positive rate is at most MAX_VAL_FPR; precision/recall are reported on the test
split, on the pool's test questions and on guard_attacks.jsonl, none of which chose anything.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import metadata, resources

import numpy as np

from eval.guard_detector.benign import load_pool
from rag.guard_model.detector import CARD, WEIGHTS, LearnedModel
from rag.guard_model.features import DIM, feature_ids
from rag.injection import fold
from rag.paths import PROJECT_ROOT

RESULTS = PROJECT_ROOT / "eval" / "results" / "guard_detector.json"
ATTACKS = PROJECT_ROOT / "datasets" / "guard_attacks.jsonl"
MAX_VAL_FPR = 0.01
C = 4.0  # inverse L2 strength: of {1, 4, 16, 64, 256}, the smallest with the best validation recall
SEED = 13


@dataclass(frozen=True)
class Row:
    text: str
    label: int  # 1 = injection / jailbreak
    source: str
    split: str


def _part(text: str) -> str:
    share = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "train" if share < 0.6 else "val" if share < 0.8 else "test"


def package_rows() -> list[Row]:
    rows = []
    corpus = resources.files("bastioncorpus") / "corpus" / "injections.jsonl"
    for line in corpus.read_text("utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            rows.append(Row(r["text"], int(r["label"] == "malicious"), "bastioncorpus", _part(r["text"])))
    mini = json.loads((resources.files("jailbreak_corpus_mini") / "corpus.json").read_text("utf-8"))
    rows += [Row(r["prompt"], 1, "jailbreak-corpus-mini", _part(r["prompt"])) for r in mini]
    return rows


def pool_rows() -> list[Row]:
    dev = [r for r in load_pool() if r["split"] == "dev"]
    return [Row(r["text"], 0, f"pool:{r['domain']}", "val" if _part(r["text"]) == "val" else "train")
            for r in dev]


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

    rows = package_rows() + pool_rows()
    train = [r for r in rows if r.split == "train"]
    val = [r for r in rows if r.split == "val"]
    test = [r for r in rows if r.split == "test"]
    fit = LogisticRegression(C=C, max_iter=2000, class_weight="balanced", random_state=SEED)
    fit.fit(matrix([r.text for r in train]), [r.label for r in train])
    coef = fit.coef_[0]
    ids = np.flatnonzero(np.abs(coef) > 1e-5).astype(np.int32)
    weights = coef[ids].astype(np.float16)
    version = hashlib.sha256(weights.tobytes()).hexdigest()[:12]
    model = LearnedModel(dict(zip(ids.tolist(), weights.astype(float).tolist(), strict=True)),
                         float(fit.intercept_[0]), 0.5, version)

    def scores(texts: list[str]) -> list[float]:
        return [model.probability(t) for t in texts]

    threshold = choose_threshold(scores([r.text for r in val]), [r.label for r in val])
    np.savez_compressed(WEIGHTS, ids=ids, weights=weights)
    versions = {p: metadata.version(p) for p in ("bastioncorpus", "jailbreak-corpus-mini-py", "scikit-learn")}
    card = {"version": version, "bias": float(fit.intercept_[0]), "threshold": threshold,
            "features": f"hashed binary char 3-5-grams + word 1-2-grams, dim {DIM}, L2-normalised",
            "model": f"LogisticRegression(C={C}, class_weight=balanced)", "trained_on": versions,
            "rows": {s: len([r for r in rows if r.split == s]) for s in ("train", "val", "test")}}
    CARD.write_text(json.dumps(card, indent=2) + "\n")
    attacks = [json.loads(line)["text"] for line in ATTACKS.read_text("utf-8").splitlines() if line.strip()]
    pool_test = [r["text"] for r in load_pool() if r["split"] == "test"]
    results = {
        "command": "python -m eval.guard_detector.train", "model": card,
        "validation": rates(scores([r.text for r in val]), [r.label for r in val], threshold),
        "test": rates(scores([r.text for r in test]), [r.label for r in test], threshold),
        "guard_attacks_jsonl": rates(scores(attacks), [1] * len(attacks), threshold),
        "benign_pool_test": rates(scores(pool_test), [0] * len(pool_test), threshold),
    }
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    for name in ("validation", "test", "guard_attacks_jsonl", "benign_pool_test"):
        print(name, results[name])
    print("threshold", threshold, "->", WEIGHTS, CARD, RESULTS)


if __name__ == "__main__":
    main()
