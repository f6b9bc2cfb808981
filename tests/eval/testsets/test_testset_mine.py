"""Mining questions from documents of every format the parsers read: each row's span is the
section under its heading in the kept text (the question itself excluded), its answer is copied
from that section, its provenance traces it to the heading; tables of contents, generic headings
and duplicates yield nothing."""

from __future__ import annotations

import io
from collections import Counter

import docx
import pptx
import pytest
from fpdf import FPDF

from eval.data.qa import item_from_row
from eval.testsets.mine import (
    dedupe,
    first_sentences,
    mine_documents,
    mine_text,
    round_robin,
)
from eval.testsets.question_rules import from_definition, from_heading
from rag.documents.base import Document
from rag.documents.parse import parse_bytes

BODY = ("The frobnicator turns raw widgets into polished widgets. It runs once per night and "
        "writes a report to the admin console. Nothing else is changed by it.")

MARKDOWN = """# Widget Handbook

Widgets are small parts that our factory assembles into machines every day of the week.

## Installing the frobnicator

Download the package and run the setup wizard. The wizard asks for your licence key and
installs the service in a minute or two.

## How do I reset my password?

Open Settings, then Account, and choose Reset. A link arrives by e-mail within five minutes.

## Introduction

This chapter introduces the handbook and the people who wrote it, with thanks.

## The spool folder

Jobs wait in the spool folder until a worker takes them; it is emptied every hour.

## Frobnicator

The frobnicator is the machine that polishes widgets. It runs once per night.

```
# not a heading: a comment in a code block
```
"""

FAQ_TXT = """Widget FAQ

Q: How long does a widget last?
A: A widget lasts about ten years under normal load. Heavy use shortens that to six years.

Q: Can I recycle old widgets?
A: Yes. Bring them to any depot and they are melted down for new parts at no charge.

Q: How long does a widget last?
A: Duplicate entries happen in real FAQs: this one says about ten years as well.
"""

HTML = f"""<html><head><title>Widget guide</title></head><body>
<h1>Widget guide</h1>
<h2>Table of contents</h2>
<ul><li>What is a widget?</li><li>Where are widgets made?</li><li>Who repairs widgets?</li></ul>
<h2>What is a widget?</h2>
<p>A widget is a small mechanical part that fits into a larger machine and moves it.</p>
<h2>Where are widgets made?</h2>
<p>Widgets are made in two plants, one in the north and one by the harbour, since 1998.</p>
<h2>Who repairs widgets?</h2>
<p>{BODY}</p>
</body></html>"""

PDF_LINES = [
    "Widget Questions and Answers",
    "1. What powers a widget?",
    "A widget draws power from the machine it sits in. It needs no battery of its own and stops "
    "when the machine stops, which makes it safe to handle during maintenance work.",
    "2. How do I clean a widget without taking the whole machine apart first?",
    "Wipe it with a dry cloth while the machine is off. Never use water, because the bearings "
    "rust within days and the warranty does not cover rust damage of any kind.",
]


def _pdf(lines: list[str]) -> bytes:
    pdf = FPDF()
    pdf.set_font("helvetica", size=11)
    pdf.add_page()
    for line in lines:
        pdf.multi_cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")  # long lines wrap
    return bytes(pdf.output())


def _docx() -> bytes:
    document = docx.Document()
    document.add_heading("Widget release notes", level=1)
    document.add_paragraph("This release makes widgets faster and quieter in every machine.")
    document.add_heading("Upgrading old widgets", level=2)
    document.add_paragraph("Old widgets are upgraded in place. Stop the machine, fit the new "
                           "firmware chip and start it again; settings are kept.")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def _mined(name: str, data: bytes) -> tuple[Document, list[dict]]:
    document = parse_bytes(name, data)
    rows, _ = mine_text(name, document.text, document.metadata.format, Counter())
    return document, rows


def _check_traced(document: Document, rows: list[dict]) -> None:
    """Every span is the kept text; the heading is where provenance says; the question is not
    inside its own span; the answer is copied from the section; the row is a valid QA row."""
    text = document.text
    for row in rows:
        (span,) = row["spans"]
        assert text[span["start"]:span["end"]] == span["text"]
        heading = row["provenance"]["heading"]
        assert text[heading["start"]:heading["end"]] == heading["text"]
        assert heading["end"] <= span["start"]  # the question text is not in the span
        assert row["question"].rstrip("?").lower() not in span["text"].lower()
        flat = " ".join(span["text"].replace("**", "").replace("`", "").split())
        assert row["answer"] and row["answer"] in flat
        assert row["provenance"]["source"] == {k: span[k] for k in ("doc", "start", "end")}
        item_from_row(row, "mined", 1)  # eval/data/qa.py reads it


def test_markdown_headings_become_questions_only_by_a_safe_rule() -> None:
    document, rows = _mined("handbook.md", MARKDOWN.encode())
    asked = {r["question"]: r["provenance"]["rule"] for r in rows}
    assert asked == {
        "How do I install the frobnicator?": "gerund-heading",
        "How do I reset my password?": "question-heading",
        "What is the spool folder?": "definition-heading",
        "What is the frobnicator?": "definition-sentence",
    }
    _check_traced(document, rows)
    reset = next(r for r in rows if r["question"] == "How do I reset my password?")
    assert reset["spans"][0]["text"].startswith("Open Settings")
    assert reset["spans"][0]["text"].endswith("within five minutes.")  # not the next heading
    frob = next(r for r in rows if r["question"] == "What is the frobnicator?")
    assert "# not a heading" in frob["spans"][0]["text"]  # code blocks hold no headings


def test_txt_faq_entries_span_the_answer_without_the_markers() -> None:
    document, rows = _mined("faq.txt", FAQ_TXT.encode())
    assert [r["question"] for r in rows] == ["How long does a widget last?",
                                             "Can I recycle old widgets?",
                                             "How long does a widget last?"]
    assert {r["provenance"]["rule"] for r in rows} == {"faq-entry"}
    _check_traced(document, rows)
    assert rows[0]["spans"][0]["text"].startswith("A widget lasts")  # "A:" is not in the span
    assert rows[0]["answer"] == ("A widget lasts about ten years under normal load. Heavy use "
                                 "shortens that to six years.")
    kept = dedupe(rows, skipped := Counter())
    assert len(kept) == 2 and skipped["duplicate question"] == 1
    assert len(kept[0]["spans"]) == 2  # both sections answer the question


def test_html_question_headings_and_a_table_of_contents() -> None:
    document, rows = _mined("guide.html", HTML.encode())
    assert [r["question"] for r in rows] == ["What is a widget?", "Where are widgets made?",
                                             "Who repairs widgets?"]
    _check_traced(document, rows)
    # the contents list asked the same questions; none of its lines became a row's span
    assert not any("?" in r["spans"][0]["text"] for r in rows)
    assert rows[0]["spans"][0]["text"].startswith("A widget is a small mechanical part")


def test_pdf_text_headings_found_by_line_shape_and_wrapped_questions() -> None:
    document, rows = _mined("widgets.pdf", _pdf(PDF_LINES))
    assert document.metadata.format == "pdf"
    assert [r["question"] for r in rows] == [
        "What powers a widget?",
        "How do I clean a widget without taking the whole machine apart first?",
    ]
    _check_traced(document, rows)
    assert rows[0]["spans"][0]["text"].startswith("A widget draws power")
    assert "maintenance work." in rows[0]["spans"][0]["text"]
    assert "How do I clean" not in rows[0]["spans"][0]["text"]


def test_docx_headings() -> None:
    document, rows = _mined("notes.docx", _docx())
    assert [(r["question"], r["provenance"]["rule"]) for r in rows] == [
        ("How do I upgrade old widgets?", "gerund-heading")]
    _check_traced(document, rows)


def test_pptx_slide_titles() -> None:
    deck = pptx.Presentation()
    for title, body in [("Exporting your notes", "Choose File, then Export, and pick Markdown, "
                                                 "HTML or PDF for the whole notebook."),
                        ("What is a vault?", "A vault is a notebook whose notes are encrypted "
                                             "with your own passphrase.")]:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text_frame.text = body
    buffer = io.BytesIO()
    deck.save(buffer)
    document, rows = _mined("deck.pptx", buffer.getvalue())
    assert [(r["question"], r["provenance"]["rule"]) for r in rows] == [
        ("How do I export my notes?", "gerund-heading"), ("What is a vault?", "question-heading")]
    _check_traced(document, rows)


def test_mine_documents_dedupes_and_spreads_a_cap_over_documents() -> None:
    docs = [parse_bytes("faq.txt", FAQ_TXT.encode()), parse_bytes("guide.html", HTML.encode()),
            parse_bytes("handbook.md", MARKDOWN.encode())]
    report = mine_documents(docs)
    assert len(report.rows) == 2 + 3 + 4 and report.skipped["duplicate question"] == 1
    assert report.per_document == {"faq.txt": 2, "guide.html": 3, "handbook.md": 4}
    assert len({r["id"] for r in report.rows}) == len(report.rows)
    capped = mine_documents(docs, max_questions=6)
    assert capped.per_document == {"faq.txt": 2, "guide.html": 2, "handbook.md": 2}


def test_round_robin_keeps_document_order_and_takes_everything_when_short() -> None:
    rows = [{"spans": [{"doc": d}], "n": i} for i, d in enumerate("aaabbc")]
    assert [r["n"] for r in round_robin(rows, 4)] == [0, 1, 3, 5]
    assert round_robin(rows, 10) == rows


@pytest.mark.parametrize(("heading", "expected"), [
    ("Installing packages", ("How do I install packages?", "gerund-heading")),
    ("Keeping your system up to date", ("How do I keep my system up to date?", "gerund-heading")),
    ("Installing and signing in", ("How do I install and sign in?", "gerund-heading")),
    ("Running Debian on old hardware", ("How do I run Debian on old hardware?", "gerund-heading")),
    ("How to install Lumen", ("How do I install Lumen?", "wh-heading")),
    ("The sources.list file", None),  # the definition rule needs the section's first sentence
    ("Why does sync stop?", ("Why does sync stop?", "question-heading")),
    ("Deleting versus editing", None),  # a second -ing form: no safe base form
    ("Building", None),  # one word, and not in the verb list
    ("Meeting notes", None),  # "Meeting" is a noun here: not in the verb list
    ("Introduction", None), ("See also", None),
    ("Why paragraphs and not characters", None),  # question word without a verb: no rule
    ("How can you help Debian? (official)", ("How can you help Debian?", "question-heading")),
    ("Do not reinvent the wheel. (Use pointers)", None),  # advice, not a question
    ("What to send", None),  # too little to ask out of context
    ("A tutorial introduction to git (/usr/share/doc/gittutorial.html)", None),  # a path
])
def test_heading_rules(heading: str, expected: tuple[str, str] | None) -> None:
    assert from_heading(heading) == expected


def test_definition_rule_needs_the_section_to_define_the_term() -> None:
    assert from_definition("APT", "APT is the Advanced Package Tool.") == ("What is APT?",
                                                                           "definition-sentence")
    assert from_definition("Vault notes", "Vault notes are encrypted.")[0] == "What are Vault notes?"
    assert from_definition("Data security", "The data security layer is …") is None
    assert from_definition("Data security", "The data security is provided by PAM.") == (
        "What is the data security?", "definition-sentence")  # written as the sentence has it
    assert from_definition("APT", "Use APT to install software.") is None
    assert from_definition("Overview", "Overview is a summary.") is None


def test_first_sentences_are_copied_and_bounded() -> None:
    assert first_sentences("One. Two is **bold**.\n\nThree.", 40) == "One. Two is bold."
    long = "word " * 300
    assert len(first_sentences(long)) <= 2 * 300 + 2
