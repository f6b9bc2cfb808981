"""FAQ recall of question mining on PDFs: how many of the FAQ pages' entries become rows, with
that entry's answer as the span.

    python -m benchmarks.faq_recall --part datasets/build/faq_pdfs/dev \
        --out benchmarks/results/faq_recall_dev.json [--sample 40 --seed 0]

`--part` is a folder made by datasets/build_faq_pdfs.py: `pdfs/` and `key.jsonl` (each FAQ
entry's text and the first words under it, read from the HTML's headings before printing). The
miner sees only the PDFs. An entry is found when a row of its document has the entry's text as
its heading or question (compared without numbering, case and punctuation, or sharing at least
80% of its words); it is found with its span when that row's span also holds the first words of
the entry's answer. `--sample N` also writes N mined rows drawn with the seed (question and the
start of the span only, no rule) to the JSON's side file `*.sample.jsonl`, for a blind read.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from eval.testsets.mine import mine_documents
from rag.documents.parse import parse_file

_NUMBERING = re.compile(r"^(?:(?:q|question)?\s*\d+(?:\s+\d+)*\s+)")
SAME_WORDS = 0.8


def words(text: str) -> str:
    flat = " ".join(re.sub(r"[^\w]+", " ", text.lower()).split())
    return _NUMBERING.sub("", flat)


def _overlap(a: str, b: str) -> float:
    x, y = set(a.split()), set(b.split())
    return len(x & y) / max(len(x | y), 1)


def matches(entry: dict[str, str], row: dict[str, Any]) -> bool:
    want = words(entry["question"])
    for got in (words(row["question"]), words(row["provenance"]["heading"]["text"])):
        if got == want or _overlap(got, want) >= SAME_WORDS:
            return True
    return False


def holds_answer(entry: dict[str, str], row: dict[str, Any]) -> bool:
    start = " ".join(words(entry["answer_start"]).split()[:6])
    return any(start in words(span["text"]) for span in row["spans"])


def score(key: list[dict[str, str]], rows: list[dict[str, Any]]) -> dict[str, Any]:
    by_doc: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        for span in row["spans"]:
            by_doc.setdefault(span["doc"], []).append(row)
    found = with_span = 0
    missed: list[dict[str, str]] = []
    for entry in key:
        hits = [r for r in by_doc.get(entry["doc"], []) if matches(entry, r)]
        found += bool(hits)
        with_span += any(holds_answer(entry, r) for r in hits)
        if not hits:
            missed.append({"doc": entry["doc"], "question": entry["question"]})
    n = max(len(key), 1)
    return {"entries": len(key), "found": found, "found_with_span": with_span,
            "recall": round(found / n, 4), "recall_with_span": round(with_span / n, 4),
            "missed": missed}


def _as_pdf(row: dict[str, Any]) -> dict[str, Any]:
    """An HTML page's row named as the key names the page (its PDF)."""
    spans = [{**s, "doc": str(s["doc"]).removesuffix(".html") + ".pdf"} for s in row["spans"]]
    return {**row, "spans": spans}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--format", choices=("pdf", "html"), default="pdf",
                        help="read the part's PDFs, or its FAQ pages as HTML (html/)")
    parser.add_argument("--sample", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    key = [json.loads(line) for line in (args.part / "key.jsonl").read_text().splitlines() if line]
    folder = args.part / ("pdfs" if args.format == "pdf" else "html")
    pdfs = sorted(folder.glob(f"*.{args.format}"))
    started = time.perf_counter()
    documents = [parse_file(p) for p in pdfs]
    parsed_s = time.perf_counter() - started
    report = mine_documents(documents)
    rows = [_as_pdf(r) for r in report.rows] if args.format == "html" else list(report.rows)
    result: dict[str, Any] = {
        "command": "python -m benchmarks.faq_recall " + " ".join(sys.argv[1:]),
        "format": args.format, "files": len(pdfs), "rows": len(rows), "by_rule": report.by_rule(),
        "doc_types": dict(Counter(d.metadata.doc_type for d in documents)),
        "faq_pages_typed_faq": sum(d.metadata.doc_type == "FAQ" for d in documents
                                   if Path(d.metadata.source).stem in {Path(e["doc"]).stem for e in key}),
        "faq_pages": len({e["doc"] for e in key}),
        "parse_seconds": round(parsed_s, 2), "skipped": report.skipped,
        **score(key, rows),
    }
    if args.sample:
        chosen = random.Random(args.seed).sample(rows, min(args.sample, len(rows)))
        side = args.out.with_suffix(".sample.jsonl")
        blind = [{"n": i + 1, "question": r["question"], "document": r["spans"][0]["doc"],
                  "answer_span_start": " ".join(r["spans"][0]["text"].split())[:400]}
                 for i, r in enumerate(chosen)]
        side.write_text("".join(json.dumps(b, ensure_ascii=False) + "\n" for b in blind),
                        encoding="utf-8")
        keyed = args.out.with_suffix(".sample_rules.jsonl")  # kept apart from the blind file
        keyed.write_text("".join(json.dumps({"n": i + 1, "rule": r["provenance"]["rule"], "id": r["id"]})
                                 + "\n" for i, r in enumerate(chosen)), encoding="utf-8")
        result["sample"] = {"file": str(side), "rules_file": str(keyed), "n": len(chosen),
                            "seed": args.seed}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(pdfs)} {args.format.upper()} files, {len(rows)} rows {result['by_rule']}; "
          f"FAQ recall {result['recall']:.1%} "
          f"({result['found']}/{result['entries']}), with span {result['recall_with_span']:.1%}; "
          f"FAQ pages typed FAQ {result['faq_pages_typed_faq']}/{result['faq_pages']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
