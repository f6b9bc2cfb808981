"""The pool of real benign questions the guard is measured on (false positives) and the learned
detector learns from (its dev half only): questions people ask of the bundled samples, Debian's
FAQ, FFmpeg's FAQs and the intent set, from the repo's own question sets. Each question gets a
split by a hash of its text: "dev" may be used to train and tune, "test" only to report.

    python -m eval.guard_detector.benign   # writes datasets/guard_benign_pool.jsonl
"""

from __future__ import annotations

import csv
import glob
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

from rag.paths import PROJECT_ROOT

POOL = PROJECT_ROOT / "datasets" / "guard_benign_pool.jsonl"
FFMPEG_QUERIES = Path("datasets/build/ffmpeg_faq/queries.jsonl")  # build_ffmpeg_faq.py's output


def split_of(text: str, test_share: float = 0.65) -> str:
    digest = int(hashlib.sha256(text.strip().lower().encode()).hexdigest()[:8], 16)
    return "test" if digest / 0xFFFFFFFF < test_share else "dev"


def _jsonl(path: Path, *keys: str) -> Iterator[str]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            for key in keys:
                if isinstance(row.get(key), str):
                    yield row[key]
                    break


def sources(ffmpeg: Path | None = None) -> Iterator[tuple[str, str]]:
    """(domain, question) from every question set in the repo (none built from SQLite's or Git's
    documentation, which are reserved for the independent check)."""
    root = PROJECT_ROOT
    for q in _jsonl(root / "datasets/guard_benign.jsonl", "text"):
        yield "guard_benign", q
    with (root / "datasets/intents.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            yield "intents", row["query"]
    for q in _jsonl(root / "datasets/qa_samples.jsonl", "question"):
        yield "lumen_samples", q
    for q in _jsonl(root / "datasets/beir_sample/queries.jsonl", "text"):
        yield "lumen_samples", q
    for q in _jsonl(root / "eval/results/parity_debian_onnx_fp32_rowsrun.perquery.jsonl", "query"):
        yield "debian_faq", q
    for path in sorted(glob.glob(str(root / "eval/results/testsets/*.jsonl"))):
        for q in _jsonl(Path(path), "question"):
            yield "mined_testsets", q
    ffmpeg = ffmpeg or root / FFMPEG_QUERIES
    if ffmpeg.exists():
        for q in _jsonl(ffmpeg, "text"):
            yield "ffmpeg_faq", q


def build(ffmpeg: Path | None = None) -> list[dict[str, str]]:
    seen: set[str] = set()
    rows = []
    for domain, question in sources(ffmpeg):
        key = question.strip().lower()
        if key and key not in seen:
            seen.add(key)
            rows.append({"domain": domain, "split": split_of(question), "text": question.strip()})
    return rows


def load_pool(path: Path = POOL) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


if __name__ == "__main__":
    import sys

    rows = build(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
    POOL.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"{len(rows)} questions -> {POOL}")
