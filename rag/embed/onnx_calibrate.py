"""Regenerate `minilm_act_max.npz`, the activation peaks the `int8-smooth` build reads:
`python -m rag.embed.onnx_calibrate CORPUS.jsonl` runs the fp32 graph over the first 128 passages.

Its own module because it needs both the builder (rag.embed.onnx_build, for the fp32 graph) and
the smoothing (rag.embed.onnx_smooth), and the builder imports the smoothing.
"""

from __future__ import annotations

import json
import sys

import numpy as np

from rag.embed.local_models import minilm_folder
from rag.embed.onnx_build import built_minilm
from rag.embed.onnx_smooth import ACT_MAX_FILE, calibrate


def main(corpus: str) -> None:
    with open(corpus, encoding="utf-8") as lines:  # the first 128 passages of a BEIR corpus
        passages = [json.loads(line)["text"] for line, _ in zip(lines, range(128), strict=False)]
    peaks = calibrate(built_minilm("fp32")[0], passages, minilm_folder() / "tokenizer.json")
    np.savez_compressed(ACT_MAX_FILE, **peaks)  # type: ignore[arg-type]
    print(f"wrote {ACT_MAX_FILE}")


if __name__ == "__main__":
    main(sys.argv[1])
