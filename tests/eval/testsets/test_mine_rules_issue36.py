"""Question rules and FAQ entries, each with the failure it fixes, taken from real pages of the
development corpus (datasets/build_faq_pdfs.py --part dev: debian-faq, debian-reference and
maint-guide printed to PDF) or from the failure classes issue 36 names."""

from __future__ import annotations

from collections import Counter

import pytest

from eval.testsets.headings import find_headings
from eval.testsets.mine import is_faq, mine_text
from eval.testsets.question_rules import (
    capitalised_words,
    from_definition,
    from_heading,
    is_phrase,
    looks_like_code,
    sentence_case,
)


@pytest.mark.parametrize(("heading", "first", "expected"), [
    # debian-reference 9.1 "The console tips" over a list of programs made "What is the console tips?"
    ("The console tips", "There are some utility programs to help your console activities.", None),
    ("The source code translation", "There are programs to convert source codes.", None),
    ("The tmpfs", "The tmpfs is a temporary filesystem which keeps all files in memory.",
     ("What is the tmpfs?", "definition-heading")),
    ("The sources.list file", "The sources.list file names the archives APT reads.",
     ("What is the sources.list file?", "definition-heading")),
    ("The spool folders", "Jobs wait in the spool folders until a worker takes them.",
     ("What are the spool folders?", "definition-heading")),
])
def test_definition_heading_needs_a_section_about_the_term(heading: str, first: str,
                                                           expected: tuple[str, str] | None) -> None:
    assert from_heading(heading, first) == expected


@pytest.mark.parametrize("fragment", [
    "Deleting a file is not safe, but it",  # a wrapped sentence taken for a heading (issue 36)
    "Compiling the kernel source: Debian Kernel Team recommendation",  # dev corpus: a title with a colon
    "Installing packages is easy",
])
def test_gerund_rule_never_on_sentences(fragment: str) -> None:
    assert not is_phrase(fragment)
    assert from_heading(fragment, "Some text.") is None


def test_definition_sentence_rule_never_on_a_fragment() -> None:
    # "What is the timeout is optional?" (issue 36): the term holds a verb
    assert from_definition("timeout is optional", "The timeout is optional is not a definition.") is None
    # debian-reference: "Colorized commands are handy …" asks about colorized commands, not a name
    names = capitalised_words("Run it. We use Debian and Debian again; colorized output helps.")
    assert from_definition("Colorized commands", "Colorized commands are handy for inspecting "
                           "their output.", names) == ("What are colorized commands?",
                                                       "definition-sentence")


@pytest.mark.parametrize("line", [
    "SELECT name FROM users WHERE id = ?",  # a SQL placeholder "?" is not a question
    "INSERT INTO t VALUES (?, ?)?",
    "if (x == y) { return; }",
    "dpkg --configure -a; echo done;",
])
def test_code_and_sql_are_never_questions(line: str) -> None:
    assert looks_like_code(line)
    assert from_heading(line) is None


@pytest.mark.parametrize("prose", [
    # debian-faq 8.2 and 9.6: a semicolon or `quotes' in a question is prose, not code
    "Debian claims to be able to update a running program; how is this accomplished?",
    "I have several machines; how can I download the updates only one time?",
    "Are there package upgrades in `stable'?",
    # found after the held-out measurement (so not counted in it): a function or a form field
    # named in a question is prose too
    "Why is join() a string method instead of a list or tuple method?",
    "How can I mimic CGI form submission (METHOD=POST)?",
])
def test_prose_questions_are_not_code(prose: str) -> None:
    assert not looks_like_code(prose)
    assert from_heading(prose) == (prose, "question-heading")


def test_long_faq_questions_are_kept() -> None:
    # debian-faq 14.3: 32 words, lost under a 30-word limit
    long = ('I am making a special Linux distribution for a "vertical market". Can I use Debian '
            "GNU/Linux for the guts of a Linux system and add my own applications on top of it?")
    assert from_heading(long) == (long, "question-heading")


def test_title_case_is_normalised_keeping_names_and_acronyms() -> None:
    names = capitalised_words("You can open it in Lumen. Lumen exports notes; the PDF goes to disk.")
    assert sentence_case("How do I export An Entire Notebook To A Text File?", names) == \
        "How do I export an entire notebook to a text file?"
    assert sentence_case("How Do I Open A Notebook In Lumen As PDF?", names) == \
        "How do I open a notebook in Lumen as PDF?"
    # a question in sentence case already, with a name or two: untouched
    assert sentence_case("Where is Google Earth?", names) == "Where is Google Earth?"


@pytest.mark.parametrize(("line", "question"), [
    ("(6) Can two processes write at once?", "Can two processes write at once?"),
    ("Q6. Can two processes write at once?", "Can two processes write at once?"),
    ("Q6 Can two processes write at once?", "Can two processes write at once?"),
    ("6) Can two processes write at once?", "Can two processes write at once?"),
    ("5.14. I have a wireless card. What should I do?", "I have a wireless card. What should I do?"),
])
def test_faq_numbering_is_stripped(line: str, question: str) -> None:
    text = f"{line}\nYes, with care: each writer takes the lock first, so the other one waits.\n"
    (head,) = find_headings(text, "txt")
    assert head.text == question


def test_numbered_question_wrapped_over_two_lines_is_joined() -> None:
    text = ("(6) Can two processes write to the same database file at\n"
            "once without corrupting it?\n"
            "Yes, with care: each writer takes the lock first, so the other one waits.\n")
    (head,) = find_headings(text, "pdf")
    assert head.text == "Can two processes write to the same database file at once without corrupting it?"


FAQ_PAGE = """Widget FAQ

1. Can two processes write at once?
Yes: each writer takes the lock first and the other one waits for it to be released.
2. Inserts are really slow, only a few dozen a second!
Wrap them in one transaction: each transaction waits for the disk, not each insert.
3. Web forum
The forum at forum.example.org answers questions from users within a day or two.
4. How do I back up a running database?
Use the online backup command; copying the file while it is written gives a torn copy.
"""


def _faq_spans(text: str) -> list[tuple[int, int, int]]:
    """Headings as a PDF's layout marks them: the numbered lines, in larger type."""
    spans, offset = [], 0
    for line in text.split("\n"):
        if line[:1].isdigit():
            spans.append((offset, offset + len(line), 2))
        offset += len(line) + 1
    return spans


def test_every_faq_entry_is_a_row_with_only_its_own_answer() -> None:
    rows, _ = mine_text("faq.pdf", FAQ_PAGE, "pdf", Counter(), _faq_spans(FAQ_PAGE), "FAQ")
    by_question = {r["question"]: r for r in rows}
    assert list(by_question) == ["Can two processes write at once?",
                                 "Inserts are really slow, only a few dozen a second!",
                                 "Web forum", "How do I back up a running database?"]
    assert by_question["Web forum"]["provenance"]["rule"] == "faq-statement"
    slow = by_question["Inserts are really slow, only a few dozen a second!"]
    assert slow["provenance"]["rule"] == "faq-statement"
    assert slow["spans"][0]["text"].startswith("Wrap them in one transaction")
    assert "forum" not in slow["spans"][0]["text"]  # the next entry is not swallowed


def test_statements_are_rows_only_on_faq_pages() -> None:
    rows, _ = mine_text("guide.pdf", FAQ_PAGE.replace("?", "."), "pdf", Counter(),
                        _faq_spans(FAQ_PAGE), "BOOK")
    assert not any(r["provenance"]["rule"] == "faq-statement" for r in rows)


def test_bold_body_lines_are_not_faq_entries() -> None:
    # debian-faq 8.5: bold commands ("dpkg --search foo") and lead-ins ("You probably can:")
    text = FAQ_PAGE + "You probably can:\nunpack the archive by hand and copy the files yourself.\n"
    start = text.index("You probably can:")
    spans = [*_faq_spans(FAQ_PAGE), (start, start + len("You probably can:"), 9)]
    rows, _ = mine_text("faq.pdf", text, "pdf", Counter(), spans, "FAQ")
    assert "You probably can:" not in {r["question"] for r in rows}


def test_an_faq_is_known_by_its_headings() -> None:
    page = FAQ_PAGE.replace("3. Web forum", "3. Where is the web forum?")
    heads = find_headings(page, "pdf", _faq_spans(page))
    assert is_faq(heads, "USER")  # 3 of 4 headings ask
    assert not is_faq(find_headings(FAQ_PAGE, "pdf", _faq_spans(FAQ_PAGE)), "USER")  # 2 ask
    assert is_faq(heads[:1], "FAQ")  # typed FAQ at ingest
