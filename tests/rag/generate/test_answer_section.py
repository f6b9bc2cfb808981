"""Issue 27, third pass: the extractive answer reads the section of each hit. A block deep in a
section also offers the section's opening; a heading an HTML page ran into the first sentence is
cut off; support comes from the answering sentence's section unless another source answers a
part of the question that section says nothing about."""

from __future__ import annotations

import pytest

from rag.context.base import BuiltContext, ContextBlock, TokenBudget
from rag.generate.answer import generate_answer, plan_answer
from rag.generate.extractive import extractive_answer
from rag.generate.whole_sentences import block_units, without_run_in_heading
from rag.grounding.evidence import with_quotes
from rag.sentences import Sentence
from rag.settings.generation import GenerationConfig

POOL = ("Pool directory\n\nPackages are kept in a large pool, structured by the name of the source "
        "package. The pool is subdivided by section and by the first letter of the name. "
        "Mirrors copy the whole pool every six hours. Old versions leave the pool after a release.")


class Texts:
    def __init__(self, **texts: str) -> None:
        self.texts = texts

    def document_text(self, doc_id: str) -> str | None:
        return self.texts.get(doc_id)


def block(text: str, start: int, end: int, doc_id: str, n: int = 1, rank: int = 1) -> ContextBlock:
    return ContextBlock(text[start:end], doc_id, f"{doc_id}-{start}", start, end, 1.0, rank, n=n)


def ctx(query: str, *blocks: ContextBlock) -> BuiltContext:
    return BuiltContext(query, tuple(blocks), TokenBudget(1000, "estimate", {}, {}, {}))


def test_a_hit_deep_in_a_section_offers_the_sections_opening_cited_as_the_hit() -> None:
    deep = block(POOL, POOL.index("Mirrors copy"), len(POOL), "pool")
    texts = Texts(pool=POOL)
    assert [u.text.split()[0] for u in block_units(deep, texts)] == ["Mirrors", "Old"]
    offered = block_units(deep, texts, openings=True)
    assert [u.text.split()[0] for u in offered] == ["Packages", "The", "Mirrors", "Old"]
    opening = offered[0]
    assert opening.completed and opening.n == 1 and opening.lead == 0
    assert POOL[opening.start:opening.end] == opening.text


def test_the_sections_opening_answers_and_is_grounded_in_its_block() -> None:
    question = "What is in the pool directory?"
    deep = block(POOL, POOL.index("Mirrors copy"), len(POOL), "pool")
    found = extractive_answer(question, ctx(question, deep), k=1, documents=Texts(pool=POOL))
    assert found.text.startswith("Packages are kept in a large pool") and found.text.endswith("[Source 1]")
    checked = with_quotes(ctx(question, deep), found.quotes)
    assert found.quotes[0].text in checked.blocks[0].text  # what grounding reads


def test_the_opening_stops_at_the_section_it_belongs_to() -> None:
    text = "Intro\n\nAn earlier section says one thing. " + POOL
    deep = block(text, text.index("Mirrors copy"), len(text), "d")
    firsts = [u.text.split()[0] for u in block_units(deep, Texts(d=text), openings=True)]
    assert "An" not in firsts and firsts[0] == "Packages"


@pytest.mark.parametrize(("sentence", "quoted"), [
    ("Choosing a Debian distribution There are many different Debian distributions.",
     "There are many different Debian distributions."),
    ("The Foundation Documents A few years after its launch, Debian wrote them down.",
     "A few years after its launch, Debian wrote them down."),
    ("The package state for APT In addition to the fetched data, APT keeps a state file.",
     "In addition to the fetched data, APT keeps a state file."),
    # not a heading: a clause ("can read"), or no sentence-starting word after the front
    ("You can read The Debian Handbook online.", "You can read The Debian Handbook online."),
    ("Debian package file names follow a convention.", "Debian package file names follow a convention."),
])
def test_a_heading_run_into_the_first_sentence_is_cut_off(sentence: str, quoted: str) -> None:
    cut = without_run_in_heading(Sentence(sentence, 10, 10 + len(sentence)))
    assert cut.text == quoted and cut.end == 10 + len(sentence)
    assert cut.start == 10 + sentence.index(quoted)


def test_a_run_in_heading_is_not_quoted_and_its_words_do_not_count() -> None:
    text = "Chapter 4\n\nChoosing a Debian distribution There are many different Debian distributions."
    units = block_units(block(text, 0, len(text), "c"), Texts(c=text))
    assert [u.text for u in units] == ["There are many different Debian distributions."]
    assert text[units[0].start:units[0].end] == units[0].text


MIRRORS = ("Mirrors\n\nA mirror carries every package of the archive. Each mirror runs an update "
           "four times a day. Mirrors are listed on the website by country.")
APT = ("Configuring APT\n\nAPT reads its mirror list from sources.list and downloads packages from "
       "the first mirror listed.")


def test_support_comes_from_the_answering_section_not_from_another_passage() -> None:
    question = "How often does a mirror update packages of the archive?"
    texts = Texts(m=MIRRORS, a=APT)
    context = ctx(question, block(MIRRORS, 0, len(MIRRORS), "m", 1, 1), block(APT, 0, len(APT), "a", 2, 2))
    anywhere = extractive_answer(question, context, k=3, documents=texts, support="any")
    assert "[Source 2]" in anywhere.text  # the APT sentence shares "mirror" and "packages"
    own = extractive_answer(question, context, k=3, documents=texts)
    assert "[Source 2]" not in own.text and own.text.startswith("A mirror carries every package")
    assert "Each mirror runs an update four times a day. [Source 1]" in own.text


def test_the_preset_setting_chooses_where_support_comes_from() -> None:
    question = "How often does a mirror update packages of the archive?"
    texts = Texts(m=MIRRORS, a=APT)
    context = ctx(question, block(MIRRORS, 0, len(MIRRORS), "m", 1, 1), block(APT, 0, len(APT), "a", 2, 2))
    answers = {}
    for scope in ("section", "any"):
        settings = GenerationConfig(extractive_support=scope)
        answers[scope] = generate_answer(plan_answer(question, context, settings), settings, None,
                                         documents=texts).text
    assert "[Source 2]" in answers["any"] and "[Source 2]" not in answers["section"]
