"""How many of a heading-derived answer key's questions the miner finds in plain text.

    python -m benchmarks.mining_recall --docs datasets/build/debian_docs/docs \
        --beir datasets/build/beir_debian --out benchmarks/results/mining_recall_debian.json

The Debian BEIR set (datasets/build_beir_debian.py) takes its questions from the HTML heading
tags (h1-h6) of Debian's documentation. The miner sees only the parsed plain text of the same
pages (datasets/build_debian_docs.py: one .txt per page, no markup), so this measures how well
it finds question headings by line shape — and whether the span it takes is the human-labelled
passage (the passage's opening words inside the mined span). It is NOT a measure of how good the
mined questions are as a test set (the Debian questions are headings, so the miner would find the
answer key itself; issue 24 item 7 validates that elsewhere).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from eval.data.beir import load_beir
from eval.testsets.mine import mine_documents, normalized
from rag.documents.parse import parse_file


def _flat(text: str) -> str:
    return " ".join(text.split()).lower()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=Path, required=True, help="folder of the pages' .txt files")
    parser.add_argument("--beir", type=Path, required=True, help="the BEIR folder built from them")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    dataset = load_beir(args.beir, "test")
    pages = {p.stem.split(".")[0]: p for p in sorted(args.docs.glob("*.txt"))}
    wanted = {pid.rsplit("-", 2)[0].replace("_en", "") for q in dataset.qrels.values() for pid in q}
    documents = [parse_file(pages[name]) for name in sorted(wanted) if name in pages]
    started = time.perf_counter()
    report = mine_documents(documents)
    seconds = time.perf_counter() - started
    # a query counts as found when a row asks it, or was made from its heading ("How to X"
    # becomes "How do I X?", the text after a question's "?" is dropped)
    mined = {normalized(r["question"]): r for r in report.rows}
    mined.update({normalized(r["provenance"]["heading"]["text"]): r for r in report.rows})
    found, span_right, missed = 0, 0, []
    for qid, question in sorted(dataset.queries.items()):
        row = mined.get(normalized(question))
        if row is None:
            missed.append(question)
            continue
        found += 1
        spans = " ".join(_flat(s["text"]) for s in row["spans"])
        opening = [" ".join(_flat(dataset.corpus[pid]["text"]).split()[:12])
                   for pid in dataset.qrels.get(qid, {})]
        span_right += any(o and o in spans for o in opening)
    result = {
        "command": sys.argv, "documents": len(documents), "queries": len(dataset.queries),
        "found": found, "recall": round(found / len(dataset.queries), 4),
        "span_holds_labelled_passage": span_right,
        "span_share_of_found": round(span_right / found, 4) if found else None,
        "mined_rows": len(report.rows), "by_rule": report.by_rule(), "skipped": report.skipped,
        "mining_seconds": round(seconds, 3), "missed": missed,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"found {found} of {len(dataset.queries)} heading questions ({result['recall']:.1%}); "
          f"span holds the labelled passage for {span_right}; {len(report.rows)} rows mined from "
          f"{len(documents)} pages in {seconds:.2f} s; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
