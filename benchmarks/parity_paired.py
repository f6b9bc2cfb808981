"""Paired per-query comparison of parity runs (`python -m eval run … --out X.json` writes
X.perquery.jsonl): each pair's mean difference with its 95 % bootstrap CI and a randomization p
(eval.scoring.stats.paired_test), per preset and metric.

    PYTHONPATH=. python benchmarks/parity_paired.py \
        --out eval/results/parity_debian_int8_smooth_rows_paired.json \
        fp32=eval/results/parity_debian_onnx_fp32_rowsrun.perquery.jsonl \
        int8-smooth=eval/results/parity_debian_onnx_int8_smooth_rowsrun.perquery.jsonl \
        int8-smooth-rows=eval/results/parity_debian_onnx_int8_smooth_rows.perquery.jsonl

Every pair (a, b) of the runs in the order given is compared as b − a.
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

from eval.scoring.stats import paired_test

METRICS = ("ndcg@10", "recall@100", "mrr@10")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("runs", nargs="+", metavar="NAME=PERQUERY.jsonl")
    args = parser.parse_args()
    runs = dict(item.split("=", 1) for item in args.runs)
    per: dict[tuple[str, str, str], dict[str, float]] = {}
    for name, path in runs.items():
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            for metric, value in row["metrics"].items():
                per.setdefault((name, row["preset"], metric), {})[row["qid"]] = value
    presets = sorted({preset for _, preset, _ in per})
    rows = []
    for preset, metric, (a, b) in itertools.product(presets, METRICS, itertools.combinations(runs, 2)):
        c = paired_test(per[(a, preset, metric)], per[(b, preset, metric)])
        rows.append({"preset": preset, "metric": metric, "a": a, "b": b, "n": c.n,
                     "mean_a": round(c.mean_a, 4), "mean_b": round(c.mean_b, 4),
                     "b_minus_a": round(c.diff, 4), "ci95": [round(x, 4) for x in c.ci.as_list()],
                     "p": round(c.p_value, 4), "wins": c.wins, "losses": c.losses})
        print(rows[-1])
    command = "PYTHONPATH=. python benchmarks/parity_paired.py --out " + " ".join([str(args.out), *args.runs])
    args.out.write_text(json.dumps({"command": command, "comparisons": rows}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

