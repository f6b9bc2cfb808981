"""Cut a small QA slice of a built QA set: its first answerable and unanswerable questions, over a
corpus slice that holds every passage of the documents those questions cite plus seeded others.

    python datasets/build_qa_slice.py --qa datasets/build/debian_abstain/qa_test.jsonl \
        --corpus datasets/build/debian_abstain/corpus.jsonl --answerable 8 --unanswerable 4 \
        --passages 400 --out datasets/build/debian_slice

For runs where every question is expensive (a local LLM on two cores answers one in a minute or
two, and each preset first embeds the corpus its own way): the slice keeps real questions and real
passages, but a smaller corpus makes retrieval easier than on the whole set, so figures from a
slice compare answerers and presets with each other, not with whole-set figures. Writes
`qa.jsonl` and `corpus.jsonl` (a BEIR-style folder `eval run --answers-corpus` reads).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path


def _document(passage_id: str) -> str:
    """The document a passage id belongs to (`<document>_en-<section>-<part>` in the builders)."""
    return passage_id.split("_en-")[0]


def build_slice(qa_rows: list[dict], corpus: list[dict], answerable: int, unanswerable: int,
                passages: int, seed: int = 12) -> tuple[list[dict], list[dict]]:
    """(questions, passages): the first questions of each kind, and the corpus slice."""
    questions = ([r for r in qa_rows if r.get("answerable", True)][:answerable]
                 + [r for r in qa_rows if not r.get("answerable", True)][:unanswerable])
    cited = {_document(d) for r in questions for d in r.get("doc_ids", [])}
    keep = {p["_id"] for p in corpus if _document(p["_id"]) in cited}
    others = [p["_id"] for p in corpus if p["_id"] not in keep]
    random.Random(seed).shuffle(others)
    keep |= set(others[:max(0, passages - len(keep))])
    return questions, [p for p in corpus if p["_id"] in keep]  # corpus order kept


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qa", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--answerable", type=int, default=8)
    parser.add_argument("--unanswerable", type=int, default=4)
    parser.add_argument("--passages", type=int, default=400)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    questions, passages = build_slice(_read(args.qa), _read(args.corpus), args.answerable,
                                      args.unanswerable, args.passages, args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, rows in (("qa.jsonl", questions), ("corpus.jsonl", passages)):
        (args.out / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(f"{len(questions)} questions, {len(passages)} passages -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
