"""The extractive answer's section prior (issue 27, third pass): which passage answers counts,
not only which words a sentence has. Each sentence's section (from its heading or question to the
next) is matched against the question with the collection's embedder."""

from __future__ import annotations

from collections.abc import Sequence

from rag.context.base import BuiltContext, ContextBlock, TokenBudget
from rag.embed import get_embedder
from rag.embed.base import EmbeddingModelError
from rag.generate.answer import generate_answer, plan_answer
from rag.generate.extractive import SECTION_PRIOR, extractive_answer, score_sentences
from rag.generate.section_prior import SECTION_CHARS, SectionSimilarity, embedding_similarity
from rag.generate.whole_sentences import block_units, section_spans
from rag.settings.embedding import EmbeddingConfig
from rag.settings.generation import GenerationConfig
from rag.text import split_sentences

EDITING = ("Editing settings\n\nEvery package keeps its configuration files under /etc. "
           "Edit them with any text editor, then restart the service.")
PURGING = ("Purging the configuration files of a package\n\nRemoving a package keeps its "
           "configuration files. Purging it with apt purge deletes them too.")
QUESTION = "How do I purge the configuration files of a package?"


class Texts:
    def __init__(self, **texts: str) -> None:
        self.texts = texts

    def document_text(self, doc_id: str) -> str | None:
        return self.texts.get(doc_id)


def whole(text: str, doc_id: str, n: int, rank: int) -> ContextBlock:
    return ContextBlock(text, doc_id, f"{doc_id}-0", 0, len(text), 1.0, rank, n=n)


def ctx(query: str, *blocks: ContextBlock) -> BuiltContext:
    return BuiltContext(query, tuple(blocks), TokenBudget(1000, "estimate", {}, {}, {}))


def hashing_similarity() -> SectionSimilarity:
    return embedding_similarity(get_embedder(EmbeddingConfig(backend="hashing", cache=False)))


def test_a_section_runs_from_its_heading_or_question_to_the_next_one() -> None:
    text = "Intro line one is here. Basics\n\nA first fact stands. Why so?\n\nBecause it is. Last one."
    sentences = split_sentences(text)
    spans = section_spans(sentences, len(text))
    by_text = {s.text.strip(): text[a:b] for s, (a, b) in zip(sentences, spans, strict=True)}
    assert by_text["Intro line one is here."].startswith("Intro line")
    first = by_text["A first fact stands."]
    assert first.startswith("Basics") and "Why so?" not in first
    assert by_text["Because it is."].startswith("Why so?") and by_text["Last one."].endswith("Last one.")


def test_the_passage_whose_section_matches_the_question_answers_when_key_words_tie() -> None:
    texts = Texts(e=EDITING, p=PURGING)
    context = ctx(QUESTION, whole(EDITING, "e", 1, 1), whole(PURGING, "p", 2, 2))
    # both leads share "package", "configuration", "files": key words and place tie, rank decides
    plain = extractive_answer(QUESTION, context, k=1, documents=texts)
    assert plain.text.startswith("Every package keeps its configuration files")
    # the purging section (its heading, "apt purge") is what the question is about
    found = extractive_answer(QUESTION, context, k=1, documents=texts, similarity=hashing_similarity())
    assert found.text == "Removing a package keeps its configuration files. [Source 2]"


def test_each_section_is_matched_once_from_its_heading_and_only_its_own_text() -> None:
    document = EDITING + "\n\n" + PURGING
    seen: list[str] = []

    def recording(question: str, sections: Sequence[str]) -> list[float]:
        seen.extend(sections)
        return [0.0] * len(sections)

    block = ContextBlock(document, "d", "d-0", 0, len(document), 1.0, 1, n=1)
    score_sentences(QUESTION, ctx(QUESTION, block), Texts(d=document), recording)
    assert len(seen) == 2  # four statements, two sections
    assert seen[0].startswith("Editing settings") and "Purging" not in seen[0]
    assert seen[1].startswith("Purging the configuration") and len(seen[1]) <= SECTION_CHARS


def test_without_the_document_text_the_section_is_read_from_the_block() -> None:
    seen: list[str] = []

    def recording(question: str, sections: Sequence[str]) -> list[float]:
        seen.extend(sections)
        return [1.0] * len(sections)

    units = block_units(whole(PURGING, "p", 1, 1), None)
    assert units and not units[0].located
    context = ctx(QUESTION, whole(PURGING, "p", 1, 1))
    ranked = score_sentences(QUESTION, context, None, recording)
    assert seen == [PURGING]
    assert ranked[0].score == score_sentences(QUESTION, context)[0].score + SECTION_PRIOR


def test_an_embedder_that_cannot_load_leaves_the_answer_and_says_so() -> None:
    def broken(question: str, sections: Sequence[str]) -> list[float]:
        raise EmbeddingModelError("model 'x' is not cached")

    context = ctx(QUESTION, whole(EDITING, "e", 1, 1), whole(PURGING, "p", 2, 2))
    plan = plan_answer(QUESTION, context, GenerationConfig())
    answer = generate_answer(plan, GenerationConfig(), None, documents=Texts(e=EDITING, p=PURGING),
                             similarity=broken)
    assert answer.mode == "extractive" and answer.text.startswith("Every package keeps")
    assert any("no section prior" in w and "not cached" in w for w in answer.warnings)
