"""Questions mined from a collection's own documents, offline, with the answer's span.

For every heading or FAQ entry in a document's kept text (eval.testsets.headings) whose text is,
or safely becomes, a question (eval.testsets.question_rules), one QA row: the question, the
section under the heading (up to the next heading) as the relevant span — the question's own
text excluded — and the section's first sentences, copied from the document, as the reference
answer. Every row's provenance names its rule and traces it to its source: the heading's span
and the section's span in the document named by file, as QA labels name documents.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, NamedTuple

from eval.testsets.headings import Heading, find_headings
from eval.testsets.question_rules import (
    capitalised_words,
    from_definition,
    from_heading,
    is_generic,
    looks_like_code,
    sentence_case,
)
from rag.chunking.base import Chunk
from rag.documents.base import Document
from rag.documents.structure import EMPHASIS_LEVEL

MIN_SECTION_CHARS = 30  # a heading with (almost) nothing under it answers nothing
MAX_SECTION_CHARS = 6000  # a whole chapter is no answer span: retrieval would be trivial
ANSWER_CHARS = 300  # the reference answer: first sentences up to about this many characters
# what every kept row passed (the names of the report's skip reasons, in order)
MINE_FILTERS = ("not_contents", "section_length", "safe_question", "deduplicated")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9*`])")
_MARKUP = re.compile(r"\*\*|__|`")


@dataclass(frozen=True)
class MineReport:
    """The mined rows, and what became of every heading found."""

    rows: tuple[dict[str, Any], ...]
    documents: int
    headings: int
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> headings
    per_document: dict[str, int] = field(default_factory=dict)  # file name -> rows
    notes: tuple[str, ...] = ()  # how the text was read, when not as kept

    def by_rule(self) -> dict[str, int]:
        return dict(Counter(str(r["provenance"]["rule"]) for r in self.rows))


def section_end(text: str, heads: Sequence[Heading], index: int) -> int:
    """A heading's section runs to the next heading (of any level) or the end of the text."""
    end = heads[index + 1].start if index + 1 < len(heads) else len(text)
    # back up over the next heading's markup ("## ", "Q: ", "2.1 ") to the end of the body
    end = text.rfind("\n", heads[index].body, end) if index + 1 < len(heads) else end
    end = max(end, heads[index].body)
    while end > heads[index].body and text[end - 1].isspace():
        end -= 1
    return end


def first_sentences(section: str, limit: int = ANSWER_CHARS) -> str:
    """The section's opening sentences, whitespace and inline markup collapsed, about `limit`
    characters: the reference answer, taken from the document, never written."""
    flat = " ".join(_MARKUP.sub("", section).split())
    answer = ""
    for sentence in _SENTENCE.split(flat):
        if answer and len(answer) + len(sentence) > limit:
            break
        answer = f"{answer} {sentence}".strip()
        if len(answer) >= limit // 3:
            break
    if len(answer) > limit * 2:  # one very long sentence: cut at a word
        answer = answer[: limit * 2].rsplit(" ", 1)[0] + " …"
    return answer


def listed_headings(heads: Sequence[Heading], section_chars: Sequence[int], run: int = 3) -> set[int]:
    """Headings in a list of headings (a table of contents): runs of `run` or more headings with
    nothing under them. The run's last heading has the text after the list under it; it is a
    list entry too when its text comes again later (the contents name the document's headings)."""
    listed: set[int] = set()
    start = 0
    for i, chars in enumerate([*section_chars, MIN_SECTION_CHARS]):
        if chars >= MIN_SECTION_CHARS:
            if i - start >= run - 1 and i < len(section_chars):
                listed.update(range(start, i))
                later = {normalized(h.text) for h in heads[i + 1 :]}
                if normalized(heads[i].text) in later:
                    listed.add(i)
            start = i + 1
    return listed


_CONTENTS_LINE = re.compile(r"^\d{1,3}(?:\.\d{1,3})*\.?\s+\S.{0,200}$")


def asks_questions(section: str) -> bool:
    """A section made mostly of questions or of numbered heading lines ("8.1.1. dpkg") is a
    piece of a table of contents, and answers nothing."""
    sentences = _SENTENCE.split(" ".join(section.split()))
    asked = sum(len(s) for s in sentences if s.endswith("?"))
    if asked * 2 > sum(len(s) for s in sentences):
        return True
    body = [line.strip() for line in section.splitlines() if line.strip()]
    listed = [line for line in body if _CONTENTS_LINE.match(line) and not line.endswith((".", "!"))]
    return len(listed) * 2 > len(body)


FAQ_QUESTION_SHARE = 0.4  # a document whose headings are mostly questions is an FAQ
MAX_STATEMENT_WORDS = 25


def is_faq(heads: Sequence[Heading], doc_type: str) -> bool:
    """An FAQ page: typed FAQ at ingest, or at least three headings and a good share of them
    questions (a chapter of an FAQ printed alone need not say "FAQ")."""
    heads = [h for h in heads if h.level < EMPHASIS_LEVEL]
    asked = sum(h.text.endswith("?") for h in heads)
    return doc_type == "FAQ" or (asked >= 3 and asked >= FAQ_QUESTION_SHARE * len(heads))


def _statement(head: Heading) -> tuple[str, str] | None:
    """An FAQ entry phrased as a statement ("Inserts are slow!", "Web forum", "dpkg"): its own
    text, as a person would type it into a search box. Not a lead-in ("You probably can:"), a
    footnote ("[3] …"), code, or bold body text."""
    text = head.text
    words = text.split()
    if not 1 <= len(words) <= MAX_STATEMENT_WORDS or is_generic(text) or looks_like_code(text):
        return None
    if head.level >= EMPHASIS_LEVEL or text.endswith((":", ",", ";")) or text.startswith("["):
        return None
    if sum(c.isalpha() for c in text) < 3 or not (text[0].isalnum() or text[0] in "\"'“"):
        return None
    return text, "faq-statement"


def _question(head: Heading, section: str, faq: bool,
              names: frozenset[str] = frozenset()) -> tuple[str, str] | None:
    if looks_like_code(head.text):
        return None
    if head.kind == "faq":
        text = head.text if head.text.endswith("?") else None
        if text and len(text.split()) >= 2:
            return text, "faq-entry"
        return _statement(head) if faq else None
    text = head.text
    if head.kind == "question-line" and not text.endswith("?"):
        text = text[: text.rindex("?") + 1]  # the question, without what follows it
    first = _MARKUP.sub("", _SENTENCE.split(" ".join(section.split()), maxsplit=1)[0])
    made = from_heading(text, first)
    if made is None:
        made = from_definition(head.text, first, names)
    if made is None and faq and head.kind in ("layout", "markdown"):
        made = _statement(head)
    return made


def _row_id(doc: str, question: str) -> str:
    return "m-" + hashlib.sha1(f"{doc}\n{question}".encode()).hexdigest()[:12]


def mine_text(doc: str, text: str, fmt: str, skipped: Counter[str], spans: Sequence[Sequence[int]] = (),
              doc_type: str = "USER") -> tuple[list[dict[str, Any]], int]:
    """The mined rows of one document (named `doc`) and how many headings it has. `spans`: the
    headings the document marks itself (metadata.extra["heading_spans"]); `doc_type`: its
    detected type (an FAQ's statement entries become rows too)."""
    heads = find_headings(text, fmt, spans)
    faq = is_faq(heads, doc_type)
    names = capitalised_words(text)
    bounds = [(head.body, section_end(text, heads, i)) for i, head in enumerate(heads)]
    listed = listed_headings(heads, [len(text[a:b].strip()) for a, b in bounds])
    rows = []
    for index, head in enumerate(heads):
        start, end = bounds[index]
        section = text[start:end]
        if index in listed:
            skipped["table of contents"] += 1
            continue
        if len(section.strip()) < MIN_SECTION_CHARS:
            skipped["section too short"] += 1
            continue
        if asks_questions(section):
            skipped["section is questions"] += 1
            continue
        if end - start > MAX_SECTION_CHARS:
            skipped["section too long"] += 1
            continue
        made = _question(head, section, faq, names)
        if made is None:
            skipped["no safe question"] += 1
            continue
        question, rule = made
        question = sentence_case(question, names)
        rows.append({
            "id": _row_id(doc, question),
            "question": question,
            "answer": first_sentences(section),
            "spans": [{"doc": doc, "start": start, "end": end, "text": section}],
            "answerable": True,
            "provenance": {
                "method": "mined", "rule": rule, "heading_kind": head.kind, "format": fmt,
                "faq_page": faq,
                "filters_passed": list(MINE_FILTERS),
                "source": {"doc": doc, "start": start, "end": end},
                "heading": {"start": head.start, "end": head.end, "text": head.text},
            },
        })
    return rows, len(heads)


def normalized(question: str) -> str:
    """Questions equal up to case, spacing and punctuation are the same question."""
    return " ".join(re.sub(r"[^\w\s]", " ", question.lower()).split())


def dedupe(rows: Iterable[dict[str, Any]], skipped: Counter[str]) -> list[dict[str, Any]]:
    """One row per question: a question asked by several sections keeps every section as a
    relevant span (any of them answers it), the first one's answer, and says so."""
    kept: dict[str, dict[str, Any]] = {}
    for row in rows:
        key = normalized(row["question"])
        first = kept.get(key)
        if first is None:
            kept[key] = row
            continue
        skipped["duplicate question"] += 1
        first["spans"] = [*first["spans"], *row["spans"]]
        first["provenance"] = {**first["provenance"],
                               "also_from": [*first["provenance"].get("also_from", []),
                                             row["provenance"]["source"]]}
    return list(kept.values())


def document_name(document: Document) -> str:
    """What QA labels call a document: its source's file name (eval.runs.own_corpus)."""
    return PurePath(document.metadata.source).name


def mine_documents(documents: Sequence[Document], max_questions: int | None = None) -> MineReport:
    """Mine every document; rows deduplicated, in document order (then capped at
    `max_questions`, taken round-robin across documents so no file dominates)."""
    return mine_texts([MineInput(document_name(d), d.text, d.metadata.format,
                                 tuple(d.metadata.extra.get("heading_spans", ())), d.metadata.doc_type)
                       for d in documents], max_questions)


class MineInput(NamedTuple):
    """One document to mine: its name, kept text and format; the headings it marks itself and
    its detected type, when known."""

    name: str
    text: str
    fmt: str
    spans: tuple[Sequence[int], ...] = ()
    doc_type: str = "USER"


def mine_texts(texts: Sequence[tuple[str, str, str] | MineInput], max_questions: int | None = None,
               notes: tuple[str, ...] = ()) -> MineReport:
    """`mine_documents` over (document name, text, format) triples or MineInputs."""
    skipped: Counter[str] = Counter()
    per_doc: list[list[dict[str, Any]]] = []
    headings = 0
    for item in texts:
        one = item if isinstance(item, MineInput) else MineInput(*item)
        rows, found = mine_text(one.name, one.text, one.fmt, skipped, one.spans, one.doc_type)
        per_doc.append(rows)
        headings += found
    rows = dedupe([r for doc_rows in per_doc for r in doc_rows], skipped)
    if max_questions is not None and len(rows) > max_questions:
        rows = round_robin(rows, max_questions)
    spread = Counter(r["spans"][0]["doc"] for r in rows)
    return MineReport(tuple(rows), len(texts), headings, dict(skipped), dict(spread), notes)


def round_robin(rows: Sequence[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """The first `n` rows taken one document at a time, in document order."""
    by_doc: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_doc.setdefault(row["spans"][0]["doc"], []).append(row)
    queues = list(by_doc.values())
    chosen: list[dict[str, Any]] = []
    depth = 0
    while len(chosen) < n:
        layer = [q[depth] for q in queues if depth < len(q)]
        if not layer:
            break
        chosen.extend(layer[: n - len(chosen)])
        depth += 1
    order = {id(r): i for i, r in enumerate(rows)}
    return sorted(chosen, key=lambda r: order[id(r)])


def texts_from_chunks(chunks: Iterable[Chunk]) -> dict[str, str]:
    """{file name: text} rebuilt from a collection's chunks at their offsets; characters no chunk
    covers (mostly the blank lines between paragraphs) become newlines, so headings stay lines."""
    pieces: dict[str, list[tuple[int, str]]] = {}
    for chunk in chunks:
        name = PurePath(str(chunk.metadata.get("source") or chunk.doc_id)).name
        pieces.setdefault(name, []).append((chunk.start, chunk.text))
    texts = {}
    for name, parts in pieces.items():
        chars = ["\n"] * max(start + len(text) for start, text in parts)
        for start, text in parts:
            chars[start : start + len(text)] = text
        texts[name] = "".join(chars)
    return texts


def mine_collection(name: str, max_questions: int | None = None) -> MineReport:
    """Mine the kept text of every document in collection `name` (for a collection built before
    texts were kept, the text rebuilt from its chunks; the report's notes say so)."""
    from eval.testsets.review import rules_off
    from rag.index import open_collection
    from rag.index.derived import kept_documents

    collection = open_collection(name)
    off = rules_off(name)
    documents = kept_documents(collection)
    if len(documents) == len(collection.manifest.documents):
        return without_rules(mine_documents(documents), off, max_questions)
    rebuilt = texts_from_chunks(collection.chunks())
    note = (f"{len(rebuilt)} documents' text rebuilt from their chunks (the collection was built "
            "before texts were kept; characters no chunk covers read as newlines)")
    report = mine_texts([(doc, text, PurePath(doc).suffix.lstrip(".") or "txt")
                         for doc, text in sorted(rebuilt.items())], None, (note,))
    return without_rules(report, off, max_questions)


def without_rules(report: MineReport, off: set[str], max_questions: int | None = None) -> MineReport:
    """The report without the rows of rules a person's review switched off (counted as skipped,
    and named in the notes), then capped at `max_questions` round-robin."""
    rows = [r for r in report.rows if r["provenance"]["rule"] not in off]
    skipped = dict(report.skipped)
    notes = report.notes
    if len(rows) < len(report.rows):
        skipped["rule switched off after review"] = len(report.rows) - len(rows)
        notes = (*notes, f"rules switched off for this collection by review: {', '.join(sorted(off))}")
    if max_questions is not None and len(rows) > max_questions:
        rows = round_robin(rows, max_questions)
    spread = Counter(r["spans"][0]["doc"] for r in rows)
    return MineReport(tuple(rows), report.documents, report.headings, skipped, dict(spread), notes)
