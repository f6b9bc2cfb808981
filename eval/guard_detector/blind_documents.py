"""Score the document screen on a labelled documents set written blind (after the detectors froze):
the share of injected documents flagged and of clean ones flagged, with Wilson 95 % intervals.

    python -m eval.guard_detector.blind_documents datasets/guard_blind_2026_12/documents.jsonl \
        --out eval/results/guard_blind_2026_12_documents.json

Rows: {"id", "category", "text", "label": "injected" | "clean"}.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from eval.scoring.guard import rate_of
from rag.context.screen import passage_findings


def score(rows: list[dict[str, str]]) -> dict[str, object]:
    """Flag rate per label and per category, with the missed and wrongly flagged ids."""
    flags = {r["id"]: bool(passage_findings(r["text"])) for r in rows}
    by_label: dict[str, list[bool]] = defaultdict(list)
    by_category: dict[str, list[bool]] = defaultdict(list)
    for r in rows:
        by_label[r["label"]].append(flags[r["id"]])
        by_category[f'{r["label"]}:{r["category"]}'].append(flags[r["id"]])
    return {
        "flagged": {label: rate_of(f) for label, f in sorted(by_label.items())},
        "by_category": {name: rate_of(f) for name, f in sorted(by_category.items())},
        "missed_injected": [r["id"] for r in rows if r["label"] == "injected" and not flags[r["id"]]],
        "flagged_clean": [r["id"] for r in rows if r["label"] == "clean" and flags[r["id"]]],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("documents", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    lines = args.documents.read_text(encoding="utf-8").splitlines()
    report = {"command": f"python -m eval.guard_detector.blind_documents {args.documents} --out {args.out}",
              **score([json.loads(line) for line in lines if line.strip()])}
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(report["flagged"]))


if __name__ == "__main__":
    main()
