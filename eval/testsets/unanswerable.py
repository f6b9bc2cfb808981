"""Questions a collection cannot answer, for abstention (rows with "answerable": false).

Two kinds, each row's provenance saying which:

- `other-source`: questions of another source — a QA file, a BEIR folder's queries, or questions
  mined from another collection — kept only when this collection does not hold their content
  words together: no paragraph of it holds MAX_PARAGRAPH_OVERLAP or more of the question's
  content words (stemmed, stopwords and question words dropped). Generic questions ("How do I
  copy a file?") fail the check and are dropped, which is the point: they may well be
  answerable here. (Each word occurring *somewhere* is no evidence in a large collection: in
  50 Debian documents every content word of most questions about a note-taking app occurs.)
- `absent-entity`: names taken from the other source (capitalised words not starting a sentence,
  CamelCase and product-like tokens such as "LumenSync" or "Python3") that occur nowhere in this
  collection, asked about with a fixed template ("What is X?", "How do I install X?").

The thresholds are fixed here, not fitted to any reported set.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rag.index.tokenizer import Tokenizer
from rag.settings.index import TokenizerConfig

MAX_PARAGRAPH_OVERLAP = 0.5  # a paragraph with half the question's content words may answer it
MIN_CONTENT_WORDS = 2
TEMPLATES = ("What is {entity}?", "What is {entity} used for?", "Who develops {entity}?")
_QUESTION_WORDS = frozenset(
    "what how why when where which who whom whose does do did can could should would will shall "
    "may might must is are was were am i me my mine you your yours we our us it its get use make "
    "there their them they he she his her one also any some many much more most other so than "
    "too very just about way need want like".split())
_ENTITY = re.compile(r"\b(?:[A-Z][a-z]+[A-Z]\w*|[A-Z]{2,}[a-z]*\d*|[A-Z][a-z]{2,}\d*|"
                     r"[a-z]+[A-Z]\w*|[A-Za-z]+\d+\w*)\b")
_SENTENCE_START = re.compile(r"(?:^|[.!?:]\s+|\n\s*)$")
_PARAGRAPH = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class UnanswerableReport:
    rows: tuple[dict[str, Any], ...]
    offered: int  # questions read from the other source
    dropped: dict[str, int] = field(default_factory=dict)  # reason -> questions


class CollectionVocabulary:
    """Which stemmed words a collection holds, overall and per paragraph."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.tokenize = Tokenizer(TokenizerConfig(stemming=True))
        self.postings: dict[str, set[int]] = {}  # stemmed word -> paragraphs holding it
        self.names: set[str] = set()  # every lower-cased word as written, for names
        paragraphs = 0
        for text in texts:
            self.names.update(re.findall(r"\w+", text.lower()))
            for part in _PARAGRAPH.split(text) if "\n\n" in text else _windows(text):
                for token in set(self.tokenize(part)):
                    self.postings.setdefault(token, set()).add(paragraphs)
                paragraphs += 1

    def content_words(self, question: str) -> list[str]:
        plain = [w for w in re.findall(r"(?u)\b\w\w+\b", question.lower()) if w not in _QUESTION_WORDS]
        return list(dict.fromkeys(self.tokenize(" ".join(plain))))

    def overlap(self, words: Sequence[str]) -> tuple[float, float]:
        """(largest share of `words` in one paragraph, share present anywhere)."""
        if not words:
            return 1.0, 1.0
        wanted = set(words)
        held = Counter(p for w in wanted for p in self.postings.get(w, ()))
        best = max(held.values(), default=0)
        present = sum(1 for w in wanted if w in self.postings)
        return best / len(wanted), present / len(wanted)

    def mentions(self, name: str) -> bool:
        words = re.findall(r"\w+", name.lower())
        return bool(words) and all(w in self.names for w in words)


def _windows(text: str, lines: int = 8) -> list[str]:
    """PDF text has no blank lines between paragraphs: windows of a few lines stand in."""
    rows = text.splitlines()
    return ["\n".join(rows[i : i + lines]) for i in range(0, len(rows), lines)]


def _row_id(kind: str, text: str) -> str:
    return f"u-{kind[:1]}-" + hashlib.sha1(text.encode()).hexdigest()[:10]


def from_questions(
    questions: Sequence[tuple[str, str]], vocabulary: CollectionVocabulary, source: str,
    dropped: dict[str, int],
) -> list[dict[str, Any]]:
    """`other-source` rows from (id, question) pairs that this collection does not answer."""
    rows, seen = [], set()
    for qid, question in questions:
        key = " ".join(question.lower().split())
        if key in seen:
            dropped["duplicate question"] = dropped.get("duplicate question", 0) + 1
            continue
        seen.add(key)
        words = vocabulary.content_words(question)
        if len(words) < MIN_CONTENT_WORDS:
            dropped["too few content words"] = dropped.get("too few content words", 0) + 1
            continue
        paragraph, present = vocabulary.overlap(words)
        if paragraph >= MAX_PARAGRAPH_OVERLAP:
            dropped["its words are in this collection"] = (
                dropped.get("its words are in this collection", 0) + 1)
            continue
        rows.append({
            "id": _row_id("other", f"{source}\n{question}"), "question": question,
            "answerable": False,
            "provenance": {"method": "unanswerable", "rule": "other-source", "from": source,
                           "original_id": qid, "content_words": words,
                           "paragraph_overlap": round(paragraph, 3),
                           "present_share": round(present, 3)},
        })
    return rows


def entities(texts: Iterable[str]) -> list[str]:
    """Names in `texts`, the most name-like first: CamelCase, all-caps and letters-with-digits
    tokens, then capitalised words that never start a sentence there and never occur in lower
    case (so "Trash" in "the Trash" is a name only if "trash" is never written), by frequency."""
    texts = list(texts)
    lower = set(re.findall(r"\b[a-z]\w+\b", "\n".join(texts)))
    strong: dict[str, int] = {}
    capital: dict[str, int] = {}
    for text in texts:
        for match in _ENTITY.finditer(text):
            word = match.group(0)
            if word.lower() in _QUESTION_WORDS or len(word) < 3:
                continue
            if word[0].isupper() and word[1:].islower():
                if word.lower() in lower or _SENTENCE_START.search(
                        text[max(0, match.start() - 3) : match.start()]):
                    continue  # "Open the menu", "the Trash" beside "trash": ordinary words
                capital[word] = capital.get(word, 0) + 1
            else:
                strong[word] = strong.get(word, 0) + 1
    ranked = sorted(strong, key=lambda w: -strong[w]) + sorted(capital, key=lambda w: -capital[w])
    return ranked


def from_entities(
    names: Sequence[str], vocabulary: CollectionVocabulary, source: str, limit: int,
    dropped: dict[str, int],
) -> list[dict[str, Any]]:
    """`absent-entity` rows: template questions about names this collection never mentions."""
    rows: list[dict[str, Any]] = []
    for name in names:
        if len(rows) >= limit:
            break
        if vocabulary.mentions(name):
            dropped["entity is in this collection"] = (
                dropped.get("entity is in this collection", 0) + 1)
            continue
        template = TEMPLATES[len(rows) % len(TEMPLATES)]
        question = template.format(entity=name)
        rows.append({
            "id": _row_id("entity", f"{source}\n{question}"), "question": question,
            "answerable": False,
            "provenance": {"method": "unanswerable", "rule": "absent-entity", "from": source,
                           "entity": name, "template": template},
        })
    return rows


def other_source_questions(source: str) -> tuple[list[tuple[str, str]], list[str], str]:
    """(id, question) pairs and texts to take names from, for `--unanswerable-from SOURCE`: a QA
    file (.jsonl/.csv), a BEIR folder (queries.jsonl, corpus.jsonl), or a collection's name
    (its mined questions and its documents' text). Returns a label for provenance too."""
    path = Path(source)
    if path.is_file():
        from eval.data.qa import load_qa_file

        qa = load_qa_file(path)
        pairs = [(i.qid, i.question) for i in qa.items]
        return pairs, [f"{i.question}\n{i.answer}" for i in qa.items], f"file:{path.name}"
    if path.is_dir() and (path / "queries.jsonl").is_file():
        from eval.data.beir import load_queries

        queries = load_queries(path / "queries.jsonl")
        texts = list(queries.values())
        corpus = path / "corpus.jsonl"
        if corpus.is_file():
            with corpus.open(encoding="utf-8") as handle:
                texts += [str(json.loads(line).get("text", "")) for line in handle if line.strip()]
        return list(queries.items()), texts, f"beir:{path.name}"
    from eval.testsets.mine import mine_collection
    from rag.index import open_collection
    from rag.index.derived import kept_documents

    report = mine_collection(source)
    documents = kept_documents(open_collection(source))
    return ([(str(r["id"]), str(r["question"])) for r in report.rows],
            [d.text for d in documents], f"collection:{source}")


def unanswerable_rows(
    collection_texts: Mapping[str, str], source: str, max_rows: int | None = None,
    entity_share: float = 0.25,
) -> UnanswerableReport:
    """Unanswerable rows for a collection (its documents' texts by name) from `source`; about
    `entity_share` of them absent-entity questions, the rest other-source questions."""
    vocabulary = CollectionVocabulary(collection_texts.values())
    pairs, texts, label = other_source_questions(source)
    dropped: dict[str, int] = {}
    asked = from_questions(pairs, vocabulary, label, dropped)
    budget = max_rows if max_rows is not None else len(asked) + max(1, len(asked) // 3)
    n_entities = max(1, round(budget * entity_share)) if budget else 0
    named = from_entities(entities(texts), vocabulary, label, n_entities, dropped)
    rows = asked[: budget - len(named)] + named
    return UnanswerableReport(tuple(rows[:budget]), len(pairs), dropped)
