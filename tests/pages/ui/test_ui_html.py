import html
import re

from pages.ui.html import (
    GAP_STYLE,
    LEAF_COLORS,
    OVERLAP_COLOR,
    PARENT_COLORS,
    SELECTED_COLOR,
    Mark,
    chunk_boundaries_html,
    chunk_depths,
    chunk_labels,
    highlight_spans,
    highlight_terms,
    term_marks,
)
from rag.chunking.base import Chunk


def _chunk(cid: str, text: str, start: int, end: int, **kw: object) -> Chunk:
    return Chunk(cid, "d", start, end, text[start:end], **kw)  # type: ignore[arg-type]


def _visible_text(fragment: str) -> str:
    without_badges = re.sub(r"<sup[^>]*>.*?</sup>", "", fragment)
    return html.unescape(re.sub(r"<[^>]+>", "", without_badges))


def test_highlight_spans_escapes_and_marks() -> None:
    text = "mail <bob@x.org> now"
    out = highlight_spans(text, [Mark(6, 15, "EMAIL")])
    assert "<bob" not in out and "&lt;" in out
    assert out.count("<mark") == 1 and 'title="EMAIL"' in out
    assert _visible_text(out) == text


def test_highlight_spans_limit_cuts_text() -> None:
    out = highlight_spans("abcdefghij", [Mark(8, 10, "x")], limit=4)
    assert _visible_text(out) == "abcd…" and "<mark" not in out


def test_term_marks_are_whole_word_and_case_insensitive() -> None:
    marks = term_marks("Qdrant stores vectors; qdrantic is not a word.", ["qdrant"])
    assert [(m.start, m.end) for m in marks] == [(0, 6)]
    assert highlight_terms("no terms here", []).count("<mark") == 0


def test_flat_chunks_alternate_colours_and_show_overlap_and_gaps() -> None:
    text = "aaaa bbbb cccc dddd"
    chunks = [_chunk("c1", text, 0, 9), _chunk("c2", text, 5, 14)]  # overlap "bbbb", gap "dddd"
    out = chunk_boundaries_html(text, chunks)
    assert LEAF_COLORS[0] in out and OVERLAP_COLOR in out and GAP_STYLE in out
    assert out.count("<sup") == 2
    assert _visible_text(out) == text
    assert SELECTED_COLOR not in out
    assert SELECTED_COLOR in chunk_boundaries_html(text, chunks, selected="c2")


def test_nested_chunks_draw_parent_underline_and_level_badges() -> None:
    text = "x" * 40
    parent = _chunk("p", text, 0, 40, level="parent")
    kids = [_chunk(f"k{i}", text, i * 20, i * 20 + 20, parent_id="p", level="child") for i in (0, 1)]
    out = chunk_boundaries_html(text, [parent, *kids])
    assert PARENT_COLORS[0] in out
    assert chunk_depths([parent, *kids]) == {"p": 0, "k0": 1, "k1": 1}
    assert chunk_labels([parent, *kids]) == {"k0": "C1", "k1": "C2", "p": "P1"}
    assert ">P1<" in out and ">C2<" in out


def test_limit_reports_remaining_characters() -> None:
    text = "y" * 100
    out = chunk_boundaries_html(text, [_chunk("c", text, 0, 100)], limit=30)
    assert "70 more characters" in out
