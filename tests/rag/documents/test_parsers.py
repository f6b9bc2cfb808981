"""Every parser on files the tests build themselves: text, titles, pages and their offsets."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rag.documents import SUPPORTED_EXTENSIONS, DocumentError, parse_bytes
from rag.documents.parsers import PARSERS
from rag.registry import UnknownStrategyError


def test_registry_covers_every_format_and_lists_valid_names() -> None:
    for extension in (".pdf", ".docx", ".pptx", ".txt", ".md", ".csv", ".html"):
        assert extension in SUPPORTED_EXTENSIONS
    with pytest.raises(UnknownStrategyError, match=r"valid: .*\.pdf"):
        PARSERS.get(".odt")
    for extension in SUPPORTED_EXTENSIONS:  # each format's module registers what it is listed for
        assert callable(PARSERS.get(extension))


def test_a_text_file_is_parsed_without_importing_the_other_formats_libraries() -> None:
    code = (
        "import sys\n"
        "from rag.documents import parse_bytes\n"
        "assert parse_bytes('notes.txt', b'apt keeps a cache.').text == 'apt keeps a cache.'\n"
        "print(sorted(m for m in ('pptx', 'docx', 'pypdf', 'bs4') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_pdf_keeps_pages_and_their_offsets(make_pdf) -> None:
    pages = ["Alpha page talks about apples.", "Beta page talks about bananas.", "Gamma page, cherries."]
    doc = parse_bytes("fruit.pdf", make_pdf(pages, title="Fruit Atlas"))
    assert doc.metadata.format == "pdf"
    assert doc.metadata.title == "Fruit Atlas"
    assert [span.page for span in doc.metadata.pages] == [1, 2, 3]
    for span, expected in zip(doc.metadata.pages, pages, strict=True):
        assert doc.text[span.start : span.end] == expected
    assert doc.page_of(doc.text.index("bananas")) == 2
    assert doc.page_of(doc.text.index("cherries")) == 3


def test_pdf_without_title_falls_back_to_file_name(make_pdf) -> None:
    assert parse_bytes("annual-report.pdf", make_pdf(["Some text."])).metadata.title == "annual-report"


def test_pdf_with_some_blank_pages_keeps_the_text_and_names_them(make_pdf) -> None:
    doc = parse_bytes("mixed.pdf", make_pdf(["Words here.", "", "More words."]))
    assert doc.metadata.extra["empty_pages"] == (2,)
    assert doc.page_of(doc.text.index("More")) == 3


def test_docx_keeps_paragraphs_and_tables_in_body_order(make_docx) -> None:
    def build(document) -> None:
        document.add_heading("Quarterly Plan", level=1)
        document.add_paragraph("Before the table.")
        table = document.add_table(rows=2, cols=2)
        for row, values in zip(table.rows, [("Item", "Owner"), ("Budget", "Rae")], strict=True):
            for cell, value in zip(row.cells, values, strict=True):
                cell.text = value
        document.add_paragraph("After the table.")

    doc = parse_bytes("plan.docx", make_docx(build))
    assert doc.metadata.title == "Quarterly Plan"
    assert doc.text.index("Before") < doc.text.index("Budget | Rae") < doc.text.index("After")
    assert "Item | Owner" in doc.text
    assert doc.metadata.extra["tables"] == 1


def test_pptx_one_slide_is_one_page(make_pptx) -> None:
    doc = parse_bytes("deck.pptx", make_pptx([("Intro", "hello world"), ("Details", "second slide body")]))
    assert doc.metadata.title == "Intro"
    assert [span.page for span in doc.metadata.pages] == [1, 2]
    second = doc.metadata.pages[1]
    assert doc.text[second.start : second.end] == "Details\nsecond slide body"


def test_markdown_title_is_first_heading_and_text_is_kept() -> None:
    data = b"Intro line\n\n## Setup\n\nText.\n\n# Later\n"
    doc = parse_bytes("guide.md", data)
    assert doc.metadata.title == "Setup"
    assert doc.text == data.decode()


def test_txt_title_is_a_short_first_line_otherwise_the_file_name() -> None:
    assert parse_bytes("a.txt", b"\n  My Article  \n\nBody.").metadata.title == "My Article"
    long_first = ("word " * 40).encode()
    assert parse_bytes("notes.txt", long_first).metadata.title == "notes"


def test_csv_rows_become_readable_lines_with_the_header_kept() -> None:
    data = b"name;role;city\nAda;engineer;Oslo\nBo;;Rome\n"
    doc = parse_bytes("people.csv", data)
    lines = doc.text.split("\n")
    assert lines[0] == "name | role | city"
    assert lines[1] == "name: Ada | role: engineer | city: Oslo"
    assert lines[2] == "name: Bo | city: Rome"  # empty cells left out
    assert doc.metadata.extra["rows"] == 2


def test_html_drops_scripts_styles_and_navigation_keeps_headings_as_lines() -> None:
    html = b"""<html><head><title>Page T</title><style>p{}</style></head><body>
    <nav>Home | Next</nav><script>var secret = 1;</script>
    <h2>Install <em>now</em></h2><p>Run the   installer.</p>
    <table><tr><th>Key</th><th>Value</th></tr><tr><td>a</td><td>1</td></tr></table>
    <ul><li>one</li><li>two</li></ul></body></html>"""
    doc = parse_bytes("page.html", html)
    assert doc.metadata.title == "Page T"
    assert "secret" not in doc.text and "p{}" not in doc.text and "Home" not in doc.text
    assert doc.text == "Install now\n\nRun the installer.\n\nKey | Value\na | 1\n\none\ntwo"


def test_html_respects_declared_charset() -> None:
    html = '<html><head><meta charset="windows-1252"></head><body><p>caf\u00e9</p></body></html>'
    doc = parse_bytes("cp.htm", html.encode("cp1252"))
    assert doc.text == "caf\u00e9"
    assert doc.metadata.format == "html"
    assert doc.metadata.encoding == "windows-1252"


@pytest.mark.parametrize(
    ("name", "data", "problem"),
    [
        ("blank.docx", b"PK\x03\x04 not really a zip", "not a valid .docx"),
        ("old.pptx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 64, "password-protected"),
        ("empty.html", b"<html><body><script>x()</script></body></html>", "no visible text"),
        ("spaces.txt", b"   \n\n  ", "no text"),
    ],
)
def test_broken_files_raise_document_error_with_an_action(name: str, data: bytes, problem: str) -> None:
    with pytest.raises(DocumentError, match=problem) as caught:
        parse_bytes(name, data)
    assert caught.value.action
