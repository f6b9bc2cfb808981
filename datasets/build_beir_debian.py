"""Build a BEIR-format test set from Debian documentation: FAQ-style headings become queries.

    python datasets/build_beir_debian.py [--packages debian-faq ...] [--out DIR]

Pages come from build_debian_docs (apt-get download + dpkg-deb -x, English HTML only). Each page
is cut into sections at its headings (h1-h6); a heading that reads as a question (ends in "?", or
starts with How/What/Why/When/Where/Which/Who) becomes a query, and the text under it is its
relevant passage. Question texts are removed from every passage (the heading, and
cross-references that quote it), so a query cannot match its own words. Every other section
becomes distractor passages of about PASSAGE_WORDS words.
Navigation bars and tables of contents are dropped, exact duplicate passages (pages that exist
twice) kept once, and duplicate questions asked once.

Writes a git-ignored folder (default datasets/build/beir_debian/): corpus.jsonl, queries.jsonl,
qrels/test.tsv, and build.json (packages, versions, counts).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning

# run as a script; `datasets` is not a package: sibling scripts first, then the project
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_debian_docs import DEFAULT_OUT as DOCS_OUT
from build_debian_docs import download, extract_pages

from rag.documents.parsers.html import visible_text

HERE = Path(__file__).resolve().parent
DEFAULT_PACKAGES = ("debian-faq", "debian-reference-en", "debian-handbook", "maint-guide",
                    "developers-reference")
DEFAULT_OUT = HERE / "build" / "beir_debian"
PASSAGE_WORDS = 180
MIN_ANSWER_CHARS = 80
MIN_PASSAGE_CHARS = 120
_DROP_CLASSES = ("navheader", "navfooter", "toc", "list-of-tables", "list-of-figures",
                 "list-of-examples", "sphinxsidebar", "related", "footer")
_NUMBERING = re.compile(
    r"^(?:(?:chapter|appendix|section)\s+)?(?:[0-9A-Z]{1,3}\.)*[0-9]{1,3}\.?\s+", re.IGNORECASE
)
_WH_START = re.compile(r"^(how|what|why|when|where|which|who)\b", re.IGNORECASE)
_MARK = "\u2063H{}\u2063"  # invisible separator: survives text extraction, never in real pages
_MARK_RE = re.compile("\u2063H(\\d+)\u2063")


@dataclass(frozen=True)
class Section:
    """The text under one heading (up to the next heading of any level)."""

    page: str  # package--page stem
    title: str  # the page title
    heading: str  # numbering and pilcrows stripped
    body: str


def clean_heading(text: str) -> str:
    """'1.2. What is Debian? ¶' -> 'What is Debian?'"""
    text = " ".join(text.replace("\u00b6", " ").split())
    return _NUMBERING.sub("", text).strip()


def is_question(heading: str) -> bool:
    """FAQ-style: ends in a question mark, or starts with a wh-word ('How to pick packages')."""
    return bool(re.search(r"\?[!.]*$", heading)) or bool(_WH_START.match(heading))


def sections_from_html(data: bytes, page: str) -> list[Section]:
    """Cut a page at its headings; the text before the first heading is dropped (navigation)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        soup = BeautifulSoup(data, "lxml")
    for tag in soup.find_all(class_=list(_DROP_CLASSES)) + soup.find_all("nav"):
        tag.decompose()
    title = " ".join(soup.title.get_text(" ").split()) if soup.title else page
    headings = []
    for index, tag in enumerate(soup.find_all(["h1", "h2", "h3", "h4", "h5", "h6"])):
        headings.append(clean_heading(tag.get_text(" ")))
        tag.clear()
        tag.append(_MARK.format(index))
    parts = _MARK_RE.split(visible_text(soup.body or soup))
    # parts = [before, index0, body0, index1, body1, ...]
    return [
        Section(page, title, headings[int(parts[i])], parts[i + 1].strip())
        for i in range(1, len(parts) - 1, 2)
    ]


def split_words(text: str, words: int = PASSAGE_WORDS) -> list[str]:
    """Pack paragraphs into passages of about `words` words (a long paragraph is cut by words)."""
    passages: list[str] = []
    current: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        tokens = paragraph.split()
        while tokens:
            room = words - len(current)
            current += tokens[:room]
            tokens = tokens[room:]
            if len(current) >= words:
                passages.append(" ".join(current))
                current = []
    if current:
        passages.append(" ".join(current))
    return passages


@dataclass(frozen=True)
class BeirRows:
    corpus: list[dict[str, str]]
    queries: list[dict[str, str]]
    qrels: list[tuple[str, str, int]]


def _question_remover(questions: set[str]) -> re.Pattern[str]:
    """Matches any question text, longest first: cross-references repeat questions verbatim."""
    ordered = sorted(questions, key=len, reverse=True)
    return re.compile("|".join(re.escape(q) for q in ordered) or "(?!)")


def build_rows(sections: Iterable[Section]) -> BeirRows:
    """Questions with their answer passages, and every other section as distractors."""
    sections = list(sections)
    questions = {s.heading for s in sections if is_question(s.heading)}
    remover = _question_remover(questions)
    corpus: list[dict[str, str]] = []
    queries: list[dict[str, str]] = []
    qrels: list[tuple[str, str, int]] = []
    seen_text: set[str] = set()
    asked: set[str] = set()
    for number, section in enumerate(sections):
        body = remover.sub("", section.body).strip()
        question = is_question(section.heading) and len(body) >= MIN_ANSWER_CHARS
        if question and section.heading.lower() in asked:
            continue  # the same question on another page (single-page edition)
        text = body if question else f"{section.heading}\n\n{body}".strip()
        ids = []
        for part, passage in enumerate(split_words(text)):
            digest = hashlib.sha1(passage.encode()).hexdigest()
            if digest in seen_text or (not question and len(passage) < MIN_PASSAGE_CHARS):
                continue
            seen_text.add(digest)
            doc_id = f"{section.page}-{number}-{part}"
            corpus.append({"_id": doc_id, "title": section.title, "text": passage})
            ids.append(doc_id)
        if question and ids:
            asked.add(section.heading.lower())
            qid = f"q{len(queries) + 1:04d}"
            queries.append({"_id": qid, "text": section.heading})
            qrels.extend((qid, doc_id, 1) for doc_id in ids)
    return BeirRows(corpus, queries, qrels)


def write_beir(rows: BeirRows, out: Path, info: dict[str, object]) -> None:
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    for name, items in (("corpus.jsonl", rows.corpus), ("queries.jsonl", rows.queries)):
        with (out / name).open("w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(item, ensure_ascii=False) + "\n" for item in items)
    lines = ["query-id\tcorpus-id\tscore"] + [f"{q}\t{d}\t{r}" for q, d, r in rows.qrels]
    (out / "qrels" / "test.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    counts = {"passages": len(rows.corpus), "queries": len(rows.queries), "qrels": len(rows.qrels)}
    (out / "build.json").write_text(json.dumps({**info, **counts}, indent=2), encoding="utf-8")


def build(out: Path = DEFAULT_OUT, packages: Sequence[str] = DEFAULT_PACKAGES) -> BeirRows:
    """Download/extract the packages (cached by build_debian_docs) and write the BEIR folder."""
    debs = download(packages, DOCS_OUT / "_debs")
    sections: list[Section] = []
    versions = {}
    for package in packages:
        for page in extract_pages(package, debs[package], DOCS_OUT / "_extract"):
            versions[package] = page.version
            name = f"{package}--{re.sub(r'[^A-Za-z0-9_-]+', '_', page.path.stem)}"
            sections += sections_from_html(page.path.read_bytes(), name)
    rows = build_rows(sections)
    write_beir(rows, out, {"packages": versions})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", nargs="+", default=list(DEFAULT_PACKAGES))
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    rows = build(args.out, args.packages)
    print(f"{len(rows.queries)} queries, {len(rows.corpus)} passages, "
          f"{len(rows.qrels)} judgements -> {args.out}")


if __name__ == "__main__":
    main()
