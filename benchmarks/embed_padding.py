"""How much of what the onnx backend runs is padding: slices sorted by characters (before) vs by
token count (rag/embed/onnx_minilm.py's `token_sorted_slices`), on the same passages.

`python -m benchmarks.embed_padding --corpus C.jsonl --out FILE.json [--texts 1000]`

Two ways texts reach the backend: a whole ingest (`rag ingest`: TextEmbedder sorts all unique
texts longest first and hands them over in batches of embedding.batch_size) and the app's
ingest with progress (rag/index/collection.py: steps of 64 chunks, each sorted by TextEmbedder).
Within each call the backend runs slices of SLICE texts, each padded to its longest text.
"before": texts sorted by characters everywhere, the app's steps in document order; "now": by
token counts in TextEmbedder and the backend, the app's steps longest first. Only the tokenizer
runs; no model.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rag.embed.local_models import minilm_folder
from rag.embed.onnx_minilm import MAX_TOKENS, SLICE, token_sorted_slices

BATCH = 64  # EmbeddingConfig.batch_size default and collection._EMBED_SLICE


def _padding(calls: list[list[int]], by_tokens: bool) -> tuple[int, int]:
    """(real tokens, padded tokens run) over calls of token counts (each in TextEmbedder order)."""
    real = run = 0
    for counts in calls:
        if by_tokens:
            slices = [[counts[i] for i in part] for part in token_sorted_slices(counts, SLICE)]
        else:
            slices = [counts[i : i + SLICE] for i in range(0, len(counts), SLICE)]
        for part in slices:
            real += sum(part)
            run += max(part) * len(part)
    return real, run


def measure(texts: list[str]) -> dict[str, object]:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(minilm_folder() / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    counts = [len(e.ids) for e in tokenizer.encode_batch(texts)]
    by_chars = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    by_tokens = sorted(range(len(texts)), key=lambda i: -counts[i])
    calls = {  # the order each way hands texts to the backend, in calls of BATCH
        # before: TextEmbedder sorted by characters; now by the backend's token counts
        "whole_ingest_before": (by_chars, False), "whole_ingest_now": (by_tokens, True),
        # before: the app's steps in document order; now longest first (by characters)
        "ingest_with_progress_before": (list(range(len(texts))), False),
        "ingest_with_progress_now": (by_chars, True),
    }  # fmt: skip
    rows = {}
    for name, (order, now) in calls.items():
        batches = []
        for start in range(0, len(order), BATCH):
            call = order[start : start + BATCH]
            if not now:  # TextEmbedder sorted each call by characters
                call = sorted(call, key=lambda i: -len(texts[i]))
            batches.append([counts[i] for i in call])
        real, run = _padding(batches, by_tokens=now)
        rows[name] = {"real_tokens": real, "tokens_run": run, "padding_share": round(1 - real / run, 4)}
    return {"texts": len(texts), "slice": SLICE, "batch": BATCH,
            "mean_tokens": round(sum(counts) / len(counts), 1), "results": rows}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--texts", type=int, default=1000)
    args = parser.parse_args()
    with args.corpus.open(encoding="utf-8") as lines:
        texts = [json.loads(line)["text"] for line in lines][: args.texts]
    result = {"command": " ".join(["python -m benchmarks.embed_padding", *sys.argv[1:]]),
              "corpus": str(args.corpus), **measure(texts)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result["results"], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
