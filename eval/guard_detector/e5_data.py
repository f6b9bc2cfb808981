"""Rows and cached embeddings for the multilingual e5 detector (eval/guard_detector/train_e5.py).

Rows: the n-gram detector's rows (data.all_rows: PyPI packages' attacks and benign messages, the
benign pool's dev half, 12/12b, hosts, hard negatives; its split kept) without two kinds:
- "augmented" (a question with an attack appended): the e5 detector embeds a text's head only,
  so the appended attack is mostly cut off and the row would teach "a benign question = attack";
- 12c/12d as data.py splits them (by text); they come back below with 12e–12g.
plus the dev sets 12c–12g (seen; each run once blind before), attacks and benign, split in half
by a hash of the row's id (train / val), plus e5_hard_negatives (split by a hash of the text),
plus, with `work_requests_too` (train_e5 --work-requests; the guard11 candidate, not shipped), the
written benign work requests (work_requests.py, its own half by a hash of the text: the
imperatives the detector must not read as orders).

Texts are embedded with mentioned quotes masked (rag.injection_mentions), as the guard reads them.
Embeddings are cached on disk ($RAG_WORKBENCH_DATA/guard_e5_cache.npz, by the head's hash), so
the training script can be re-run without re-embedding ~9,000 texts.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from eval.guard_detector.data import all_rows
from eval.guard_detector.e5_hard_negatives import e5_hard_negatives
from eval.guard_detector.work_requests import split_of, work_requests
from rag.guard_model.e5 import head, load_encoder
from rag.injection_mentions import mask_mentions
from rag.paths import PROJECT_ROOT

DEV_SETS = ("12c", "12d", "12e", "12f", "12g", "12h")


@dataclass(frozen=True)
class E5Row:
    text: str
    label: int
    source: str
    split: str  # train / val / test
    category: str = ""
    row_id: str = ""


def id_half(row_id: str, set_name: str) -> str:
    share = int(hashlib.sha256(f"e5:{set_name}:{row_id}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "train" if share < 0.5 else "val"


def text_half(text: str) -> str:
    share = int(hashlib.sha256(f"e5hn:{text}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "train" if share < 0.5 else "val"


def read_jsonl(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def dev_rows(set_name: str) -> list[E5Row]:
    folder = PROJECT_ROOT / "datasets" / f"guard_blind_2026_{set_name}"
    rows = []
    for name, label in (("attacks", 1), ("benign", 0)):
        for r in read_jsonl(folder / f"{name}.jsonl"):
            rows.append(E5Row(r["text"], label, f"dev_{set_name}:{name}", id_half(r["id"], set_name),
                              str(r.get("category", "")), r["id"]))
    return rows


def e5_rows(work_requests_too: bool = False) -> list[E5Row]:
    """The detector's rows; `work_requests_too` adds the written work requests (the guard11
    candidate, not the shipped detector: its card's command must still reproduce it)."""
    base = [E5Row(r.text, r.label, r.source, r.split) for r in all_rows()
            if r.source != "augmented" and not r.source.startswith(("blind_c:", "blind_d:"))]
    rows = base + [r for s in DEV_SETS for r in dev_rows(s)]
    rows += [E5Row(t, 0, "e5_hard_negatives", text_half(t)) for t in e5_hard_negatives()]
    # the stack uses the same halves (stack_data), so its written validation rows stay unseen here too
    if work_requests_too:
        rows += [E5Row(t, 0, "work_requests", "train" if split_of(t) == "train" else "val")
                 for t in work_requests()]
    seen: set[str] = set()
    out = []
    for row in rows:  # a text in two sources keeps its first row
        key = row.text.strip().lower()
        if key not in seen:
            seen.add(key)
            out.append(row)
    return out


def cache_path() -> Path:
    return Path(os.environ.get("RAG_WORKBENCH_DATA", "data")) / "guard_e5_cache.npz"


def embed(texts: list[str], batch: int = 16, prepare: Callable[[str], str] = mask_mentions) -> np.ndarray:
    """Embeddings of each text's head, cached on disk by the head's hash. `prepare` masks the
    text as the guard would; pass `str` for a text the guard's own masking already produced."""
    encoder = load_encoder()
    heads = [head(prepare(t), encoder.count) for t in texts]  # as the guard reads them
    keys = [hashlib.sha256(h.encode()).hexdigest()[:20] for h in heads]
    path = cache_path()
    cache: dict[str, np.ndarray] = {}
    if path.exists():
        with np.load(path) as data:
            cache = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
    todo = sorted({k: h for k, h in zip(keys, heads, strict=True) if k not in cache}.items(),
                  key=lambda kv: len(kv[1]))
    for start in range(0, len(todo), batch):
        part = todo[start:start + batch]
        vectors = np.asarray(encoder.model.encode([h for _, h in part], True), dtype=np.float32)
        cache.update({k: v for (k, _), v in zip(part, vectors, strict=True)})
        if (start // batch) % 50 == 49 or start + batch >= len(todo):
            path.parent.mkdir(parents=True, exist_ok=True)
            np.savez(path, keys=np.array(list(cache)), vectors=np.stack(list(cache.values())))
            print(f"embedded {min(start + batch, len(todo))}/{len(todo)}", flush=True)
    return np.stack([cache[k] for k in keys]) if keys else np.zeros((0, int(encoder.model.dim)), np.float32)


def extra_eval_texts() -> list[str]:
    """Texts scored but never trained on: pool, 12/12b/held-out sets, guard_benign.jsonl."""
    texts = [r["text"] for r in read_jsonl(PROJECT_ROOT / "datasets" / "guard_benign_pool.jsonl")]
    texts += [r["text"] for r in read_jsonl(PROJECT_ROOT / "datasets" / "guard_benign.jsonl")]
    for folder in ("guard_heldout_2026_11", "guard_blind_2026_12", "guard_blind_2026_12b"):
        for name in ("attacks", "benign"):
            texts += [r["text"] for r in read_jsonl(PROJECT_ROOT / "datasets" / folder / f"{name}.jsonl")]
    return texts


if __name__ == "__main__":
    rows = e5_rows()
    print(len(rows), "rows")
    embed([r.text for r in rows] + extra_eval_texts())
