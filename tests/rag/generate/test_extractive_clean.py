"""The extractive answer copies statements, not FAQ scaffolding: no question lines, headings,
list markers, answer labels or list lead-ins; inline Markdown survives; each sentence cites."""

from __future__ import annotations

import re

from answer_helpers import context

from rag.context.base import ContextBlock
from rag.generate.extractive import extractive_answer
from rag.generate.whole_sentences import block_units

FAQ = """Lumen Notes: Frequently Asked Questions

Q: How long are deleted notes kept?
A: Deleted notes stay in the Trash for 30 days. After that they are removed permanently.

Q: How large can an attachment be?
A: Each attachment can be up to 250 MB."""

HANDBOOK = """## Trash and deleted notes

Deleting a note moves it to the **Trash**. Three things to know:

- Deleted notes are kept for 30 days.
- 1. You can restore a deleted note from the Trash at any time.
"""


def test_question_lines_headings_and_labels_are_never_copied() -> None:
    question = "How long are deleted notes kept?"
    found = extractive_answer(question, context(question, FAQ))
    answer, note = found.text, found.note
    assert not note
    assert "Q:" not in answer and "A:" not in answer and "?" not in answer
    assert answer.startswith("Deleted notes stay in the Trash for 30 days. [Source 1]")


def test_list_scaffolding_is_cut_and_markdown_kept() -> None:
    block = ContextBlock(HANDBOOK, "d", "c", 0, len(HANDBOOK), 1.0, 1, n=1)
    sentences = [u.text for u in block_units(block, None)]
    assert sentences == ["Deleting a note moves it to the **Trash**.",
                         "Deleted notes are kept for 30 days.",
                         "You can restore a deleted note from the Trash at any time."]


def test_one_to_three_sentences_each_with_its_citation() -> None:
    question = "How long are deleted notes kept in the Trash?"
    answer = extractive_answer(question, context(question, FAQ, HANDBOOK)).text
    sentences = [s for s in re.split(r"(?<=\])\s+", answer) if s]
    assert 1 <= len(sentences) <= 3
    assert all(re.search(r"\[Source \d\]$", s) for s in sentences)
    assert not any(s.lstrip().startswith(("-", "#", "1.")) for s in sentences)


def test_a_context_of_scaffolding_only_gives_no_answer_and_says_why() -> None:
    question = "What are the Trash settings?"
    found = extractive_answer(question, context(question, "## Trash settings\n- Trash settings"))
    assert (found.text, found.note) == ("", "no whole sentence in the context")
