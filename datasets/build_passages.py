"""Build a BEIR-shaped passage corpus (+ known-item queries) from the Debian docs on this machine.

Real text, no download: README/NEWS/changelog/markdown/reStructuredText files under
/usr/share/doc (copyright files left out: they are mostly repeated licence text), split into
~100-word passages on paragraph boundaries, exact duplicates dropped. Queries are 4-8 word
fragments of randomly chosen passages, so each has a known source passage.

    python datasets/build_passages.py --out datasets/build/debian-passages --max-passages 50000
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

from build_beir_debian import split_words

DOC_ROOT = Path("/usr/share/doc")
_TEXT_SUFFIXES = {".txt", ".md", ".rst", ".gz", ""}
_WORD = re.compile(r"\w+")


def _source_files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*")):
        name = path.name.lower()
        if not path.is_file() or path.is_symlink() or name.startswith("copyright"):
            continue
        if path.suffix.lower() in _TEXT_SUFFIXES and not name.endswith((".html.gz", ".png.gz")):
            yield path


def _read(path: Path) -> str:
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    text = raw.decode("utf-8", errors="replace")
    return text if text.count("\ufffd") < 5 else ""  # binary or another encoding: skip


def split_passages(text: str, words: int = 100) -> list[str]:
    """Passages of about `words` words (build_beir_debian's packing); a tail under 10 words is dropped."""
    passages = split_words(text, words)
    if passages and len(passages[-1].split()) < 10:
        passages.pop()
    return passages


def build(root: Path, out: Path, max_passages: int, n_queries: int, seed: int) -> tuple[int, int]:
    out.mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()
    corpus: list[dict[str, str]] = []
    for path in _source_files(root):
        title = str(path.relative_to(root))
        for i, passage in enumerate(split_passages(_read(path))):
            digest = hashlib.sha1(passage.encode()).hexdigest()
            if digest in seen or len(_WORD.findall(passage)) < 10:
                continue
            seen.add(digest)
            corpus.append({"_id": f"{title}#{i}", "title": title, "text": passage})
        if len(corpus) >= max_passages:
            break
    corpus = corpus[:max_passages]
    rng = random.Random(seed)
    queries = []
    for qid, doc in enumerate(rng.sample(corpus, min(n_queries, len(corpus)))):
        words = doc["text"].split()
        length = rng.randint(4, 8)
        start = rng.randrange(max(1, len(words) - length))
        queries.append(
            {
                "_id": f"q{qid}",
                "text": " ".join(words[start : start + length]),
                "source": doc["_id"],
            }
        )
    for name, rows in (("corpus.jsonl", corpus), ("queries.jsonl", queries)):
        with (out / name).open("w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    return len(corpus), len(queries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=DOC_ROOT)
    parser.add_argument("--out", type=Path, default=Path("datasets/build/debian-passages"))
    parser.add_argument("--max-passages", type=int, default=50_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    n_corpus, n_queries = build(args.root, args.out, args.max_passages, args.queries, args.seed)
    print(f"{n_corpus} passages, {n_queries} queries -> {args.out}")


if __name__ == "__main__":
    main()
