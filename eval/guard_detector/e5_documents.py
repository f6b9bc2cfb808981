"""Would the e5 detector help the document screen? On the dev sets' documents (12c–12g), count the
documents flagged by the screen's patterns, by the e5 detector on the document's head, and on any
of its first eight lines, and what the e5 detector would add to the patterns.

    python -m eval.guard_detector.e5_documents --out eval/results/guard_e5_documents_check.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from eval.guard_detector.e5_data import DEV_SETS, read_jsonl
from rag.context.screen import passage_findings
from rag.guard_model.e5 import load_e5
from rag.paths import PROJECT_ROOT


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    model = load_e5()
    if isinstance(model, str):
        raise SystemExit(model)
    counts: dict[str, dict[str, int]] = {}
    for name in DEV_SETS:
        for row in read_jsonl(PROJECT_ROOT / "datasets" / f"guard_blind_2026_{name}" / "documents.jsonl"):
            patterns = bool(passage_findings(row["text"]))
            lines = [line for line in row["text"].split("\n") if len(line) >= 12][:8]
            head = model.probability(row["text"]) >= model.threshold
            any_line = bool(lines) and max(model.probabilities(lines)) >= model.threshold
            c = counts.setdefault(row["label"], dict.fromkeys(
                ("n", "patterns", "e5_head", "e5_any_line", "e5_head_adds", "e5_line_adds"), 0))
            c["n"] += 1
            c["patterns"] += patterns
            c["e5_head"] += head
            c["e5_any_line"] += any_line
            c["e5_head_adds"] += head and not patterns
            c["e5_line_adds"] += any_line and not patterns
    report = {"command": "python -m eval.guard_detector.e5_documents --out " + str(args.out),
              "sets": list(DEV_SETS), "threshold": model.threshold, "model": model.version, "counts": counts}
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
