"""`python -m benchmarks.window_corpus --corpus datasets/build/beir_debian/corpus.jsonl --n 200000
--out DIR`: a BEIR-shaped corpus of `n` distinct 100-word windows over the Debian passages, for
store benchmarks at sizes the Debian docs on this machine do not reach as separate passages.

Windows start every `stride` words of the passages' text laid end to end (several passes with
shifted starts when one is not enough), so every passage is real text and no two are equal; they
overlap, so they say nothing about retrieval quality, only about the engine's size, build time,
memory and latency. The windows are shuffled (seed 0), so any prefix (the scale benchmark takes
the first N) spreads over the whole text. Queries are the Debian BEIR set's own.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from pathlib import Path

from eval.data.beir import load_corpus


def windows(words: list[str], n: int, width: int = 100) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    stride = max(1, (len(words) - width) * 1 // max(n, 1)) or 1
    for shift in range(stride):
        for start in range(shift, len(words) - width, stride):
            text = " ".join(words[start : start + width])
            if text not in seen:
                seen.add(text)
                out.append(text)
                if len(out) == n:
                    return out
    raise ValueError(f"only {len(out)} distinct windows in {len(words)} words; ask for fewer")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    words = " ".join(d["text"] for d in load_corpus(args.corpus).values()).split()
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "corpus.jsonl").open("w", encoding="utf-8") as f:
        chosen = windows(words, args.n)
        random.Random(0).shuffle(chosen)
        for i, text in enumerate(chosen):
            f.write(json.dumps({"_id": f"w{i}", "title": "", "text": text}) + "\n")
    shutil.copy(args.corpus.with_name("queries.jsonl"), args.out / "queries.jsonl")
    print(f"{args.n} windows of {len(words)} words -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
