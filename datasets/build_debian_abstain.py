"""Build a QA set with questions a Debian-documentation corpus cannot answer.

    python datasets/build_debian_abstain.py [--out DIR] [--per-project N]

Answerable questions and the corpus come from build_beir_debian (FAQ-style headings of Debian's
documentation packages, their text as the relevant passages, question text removed from every
passage). Unanswerable questions are real FAQ headings of two *other* software projects, asked
of the same corpus: the Python FAQ (python3.11-doc, html/faq/*.html) and the R FAQ
(r-doc-html, R-FAQ.html), fetched the same way (apt-get download + dpkg-deb -x). Questions that
name Debian or the operating system (debian, ubuntu, linux, unix, apt, dpkg, deb, package
manager…) are dropped, since the corpus may well answer them. Generic ones that remain ("How do
I copy a file?") may be answerable from the corpus too: rows carry `names_project`, true when the
question names its project, so results can be read on the unambiguous ones.

Two disjoint splits, so a bar is never fitted and reported on the same questions or project:
  qa_calibrate.jsonl  odd-numbered Debian questions + Python FAQ questions
  qa_test.jsonl       even-numbered Debian questions + R FAQ questions
qa.jsonl holds both. Answerable rows carry `doc_ids` (passage ids) and a reference answer (the
first sentences of the first relevant passage); unanswerable rows carry `"answerable": false`.
The folder is also a BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv of the answerable
questions). Default out: datasets/build/debian_abstain/ (git-ignored).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_beir_debian import DEFAULT_PACKAGES, build_rows, is_question, sections_from_html, write_beir
from build_debian_docs import DEFAULT_OUT as DOCS_OUT
from build_debian_docs import download, extract_pages

from rag.text import content_words, split_sentences

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "build" / "debian_abstain"
# project -> (package, pages holding its FAQ)
OTHER_PROJECTS = {
    "python": ("python3.11-doc", re.compile(r"/html/faq/(?!index)[a-z]+\.html$")),
    "r": ("r-doc-html", re.compile(r"/R/doc/manual/R-FAQ\.html$")),
}
SPLIT_PROJECT = {"python": "calibrate", "r": "test"}
# Questions about the platform the corpus documents are not "another project's" questions.
_PLATFORM = re.compile(r"\b(debian|ubuntu|linux|unix|apt(-get)?|dpkg|deb|package manager|"
                       r"distribution|distro|gnu)\b", re.I)
# Whether the question names its project: generic ones ("How do I copy a file?") are ones the
# Debian corpus may in fact answer; rows say so (`names_project`), so results can be split by it.
_NAMES = {"python": re.compile(r"python", re.I), "r": re.compile(r"\bR\b|\bCRAN\b|\.R\w*")}
MIN_CONTENT_WORDS = 2
REFERENCE_SENTENCES = 2


def other_questions(project: str) -> list[str]:
    """FAQ headings of another project that read as questions, de-duplicated, in page order."""
    package, pages = OTHER_PROJECTS[project]
    deb = download([package], DOCS_OUT / "_debs")[package]
    found: dict[str, str] = {}
    for page in extract_pages(package, deb, DOCS_OUT / "_extract"):
        if not pages.search(page.relative):
            continue
        for section in sections_from_html(page.path.read_bytes(), page.path.stem):
            question = section.heading
            if is_question(question) and keep(question):
                found.setdefault(question.lower(), question)
    return list(found.values())


def keep(question: str) -> bool:
    return not _PLATFORM.search(question) and len(content_words(question)) >= MIN_CONTENT_WORDS


def reference(text: str) -> str:
    return " ".join(s.text for s in split_sentences(text)[:REFERENCE_SENTENCES])


def _pick(items: Sequence[str], n: int | None, salt: str) -> list[str]:
    """`n` items chosen by a hash (stable whatever the order), or all."""
    ranked = sorted(items, key=lambda q: hashlib.sha1(f"{salt}:{q}".encode()).hexdigest())
    return ranked if n is None else ranked[:n]


def qa_rows(queries: Iterable[dict[str, str]], qrels: Sequence[tuple[str, str, int]],
            corpus: dict[str, str], others: dict[str, list[str]]) -> dict[str, list[dict[str, object]]]:
    relevant: dict[str, list[str]] = {}
    for qid, doc, _ in qrels:
        relevant.setdefault(qid, []).append(doc)
    splits: dict[str, list[dict[str, object]]] = {"calibrate": [], "test": []}
    for number, query in enumerate(queries):
        docs = relevant[query["_id"]]
        row = {"id": f"debian-{query['_id']}", "question": query["text"],
               "answer": reference(corpus[docs[0]]), "doc_ids": docs}
        splits["calibrate" if number % 2 else "test"].append(row)
    for project, questions in others.items():
        split = SPLIT_PROJECT[project]
        for i, question in enumerate(questions):
            named = bool(_NAMES[project].search(question))
            splits[split].append({"id": f"{project}-{i:03d}", "question": question, "answerable": False,
                                  "project": project, "names_project": named})
    return splits


def write_jsonl(path: Path, rows: Iterable[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def build(out: Path = DEFAULT_OUT, per_project: int | None = None) -> dict[str, int]:
    debs = download(DEFAULT_PACKAGES, DOCS_OUT / "_debs")
    sections = []
    versions: dict[str, str] = {}
    for package in DEFAULT_PACKAGES:
        for page in extract_pages(package, debs[package], DOCS_OUT / "_extract"):
            versions[package] = page.version
            name = f"{package}--{re.sub(r'[^A-Za-z0-9_-]+', '_', page.path.stem)}"
            sections += sections_from_html(page.path.read_bytes(), name)
    rows = build_rows(sections)
    others = {p: _pick(other_questions(p), per_project, p) for p in OTHER_PROJECTS}
    corpus = {c["_id"]: c["text"] for c in rows.corpus}
    splits = qa_rows(rows.queries, rows.qrels, corpus, others)
    counts = {f"{split}_{kind}": sum((r.get("answerable", True) is True) == (kind == "answerable")
                                     for r in split_rows)
              for split, split_rows in splits.items() for kind in ("answerable", "unanswerable")}
    write_beir(rows, out, {"packages": versions, "other_projects": {
        p: OTHER_PROJECTS[p][0] for p in OTHER_PROJECTS}, **counts})
    write_jsonl(out / "qa_calibrate.jsonl", splits["calibrate"])
    write_jsonl(out / "qa_test.jsonl", splits["test"])
    write_jsonl(out / "qa.jsonl", [*splits["calibrate"], *splits["test"]])
    return {"passages": len(rows.corpus), **counts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--per-project", type=int, default=None,
                        help="at most this many unanswerable questions per other project")
    args = parser.parse_args()
    print(json.dumps(build(args.out, args.per_project)) + f" -> {args.out}")


if __name__ == "__main__":
    main()
