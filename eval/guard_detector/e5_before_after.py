"""The e5 detector before and after a retrain, on the same validation rows (the current
e5_rows' val split, 12h's half and the new hard negatives included), each at its own card's
threshold. Dev figures: the threshold was chosen on these rows.

    RAG_WORKBENCH_DATA=… python -m eval.guard_detector.e5_before_after OLD.npz OLD.json --out FILE.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from eval.guard_detector.e5_data import e5_rows, embed
from eval.guard_detector.train import rates
from eval.guard_detector.train_e5 import by_family, sigmoid
from rag.guard_model.e5 import E5_CARD, E5_WEIGHTS


def _scores(x: np.ndarray, weights: Path, card: Path) -> tuple[np.ndarray, float, str]:
    meta = json.loads(card.read_text("utf-8"))
    with np.load(weights) as data:
        coef = data["coef"]
    return sigmoid(x @ coef + float(meta["bias"])), float(meta["threshold"]), str(meta["version"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("old_weights", type=Path)
    parser.add_argument("old_card", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    rows = e5_rows()
    val = np.array([r.split == "val" for r in rows])
    y = np.array([r.label for r in rows])
    x = embed([r.text for r in rows])
    out: dict[str, object] = {
        "note": "validation half (dev: the threshold was chosen on it)",
        "command": "python -m eval.guard_detector.e5_before_after OLD.npz OLD.json --out FILE"}
    for name, (w, c) in (("before", (args.old_weights, args.old_card)), ("after", (E5_WEIGHTS, E5_CARD))):
        p, cut, version = _scores(x, w, c)
        hard = val & np.array([r.source == "e5_hard_negatives" for r in rows])
        dev = val & np.array([r.source.startswith("dev_") for r in rows])
        out[name] = {"version": version, "threshold": cut,
                     "all_val": rates(p[val].tolist(), y[val].tolist(), cut),
                     "hard_negatives_val_flagged": f"{int((p[hard] >= cut).sum())}/{int(hard.sum())}",
                     "dev_sets_val": by_family(rows, p >= cut, dev)}
    args.out.write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps(out, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
