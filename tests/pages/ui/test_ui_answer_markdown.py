"""The coloured answer renders the sources' inline Markdown instead of showing raw ** and `."""

from __future__ import annotations

from pages.ui.answer import answer_html
from rag.grounding.base import SentenceCheck


def test_bold_and_code_become_tags_inside_the_verdict_colours() -> None:
    text = "Deleting a note moves it to the **Trash**; run `lumen restore` to undo. [Source 1]"
    check = SentenceCheck(0, text, 0, len(text), (1,), 1.0, 1.0, "supported", "lexical")
    html = answer_html(text, [check])
    assert "<strong>Trash</strong>" in html and "<code>lumen restore</code>" in html
    assert "**" not in html and "`" not in html
    assert "rgba(34, 197, 94" in html  # still coloured


def test_markup_in_the_answer_text_is_still_escaped() -> None:
    text = "Use **<b>x</b>** here. [Source 1]"
    check = SentenceCheck(0, text, 0, len(text), (1,), 1.0, 1.0, "supported", "lexical")
    assert "<b>x</b>" not in answer_html(text, [check])
