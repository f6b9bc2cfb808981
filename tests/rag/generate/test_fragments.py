"""What the extractive answerer offers as a quotable sentence (issue 27, fourth pass): every
answer sentence reads as a sentence. The classes found on the Debian calibration split: a
sentence the document starts with a lower-case name or term ("reprepro stores …", a definition
item "hold - the user wants …"), a listing an HTML page ran into one line (a directory tree), a
passage cut mid-sentence under its title, and a stop inside a quoted name that the splitter took
for a sentence end."""

from __future__ import annotations

from rag.context.base import BuiltContext, ContextBlock, TokenBudget
from rag.generate.extractive import extractive_answer
from rag.generate.whole_sentences import block_units, reads_as_sentence, statement


class Texts:
    def __init__(self, **texts: str) -> None:
        self.texts = texts

    def document_text(self, doc_id: str) -> str | None:
        return self.texts.get(doc_id)


def whole(text: str, doc_id: str, n: int = 1, rank: int = 1) -> ContextBlock:
    return ContextBlock(text, doc_id, f"{doc_id}-0", 0, len(text), 1.0, rank, n=n)


def ctx(query: str, *blocks: ContextBlock) -> BuiltContext:
    return BuiltContext(query, tuple(blocks), TokenBudget(1000, "estimate", {}, {}, {}))


TOOLS = ("Creating a package repository\n\nTwo tools are more advanced. reprepro stores packages and "
         "checksums in a Berkeley DB database file, so no database server is needed.")
POLICY = ("Database packages\n\nThe Debian archive offers database server packages for "
          "PostgreSQL and MariaDB.")
FLAGS = ("Want flags\n\nThese flags tell what the user wanted to do with a package. "
         "hold - the user wants this package not to be processed. "
         "install - the user wants the package installed or upgraded.")


def test_a_sentence_that_starts_lower_case_or_with_punctuation_does_not_read_as_one() -> None:
    assert not reads_as_sentence("reprepro stores packages in a database file.")
    assert not reads_as_sentence("hold - the user wants this package not to be processed.")
    assert not reads_as_sentence('"http://example.org/x.pl?A=1" "%nn" in URL is replaced.')
    assert not reads_as_sentence('} octal format: "\\377" | The "echo" command differs.')
    assert reads_as_sentence('"Unstable" is always referred to as sid.')
    assert reads_as_sentence("2 packages are held back.")


def test_a_sentence_that_reads_as_one_is_preferred_to_a_lower_case_one_covering_more() -> None:
    question = "Which database server stores packages?"
    found = extractive_answer(question, ctx(question, whole(TOOLS, "tools"), whole(POLICY, "policy", 2, 2)),
                              documents=Texts(tools=TOOLS, policy=POLICY))
    assert [q.text[:10] for q in found.quotes] == ["The Debian"]  # not "reprepro stores …"


def test_definition_items_are_not_support_when_a_sentence_answers() -> None:
    question = "What do these flags tell about a package?"
    found = extractive_answer(question, ctx(question, whole(FLAGS, "flags")), documents=Texts(flags=FLAGS))
    assert found.quotes and all(reads_as_sentence(q.text) for q in found.quotes)


def test_a_sentence_restating_the_question_does_not_answer_it() -> None:
    """Issue 39: "These flags tell what the user wanted to do with a package." holds every word
    of the question and adds none; the definition item is the answer."""
    question = "What does the hold flag tell about what the user wanted for a package?"
    found = extractive_answer(question, ctx(question, whole(FLAGS, "flags")), documents=Texts(flags=FLAGS))
    assert [q.text for q in found.quotes] == ["hold - the user wants this package not to be processed."]


def test_with_nothing_else_to_quote_a_lower_case_sentence_still_answers() -> None:
    question = "Where does reprepro store checksums?"
    found = extractive_answer(question, ctx(question, whole(TOOLS, "tools")), documents=Texts(tools=TOOLS))
    assert found.quotes[0].text.startswith("reprepro stores packages and checksums")  # no answer lost


def test_a_listing_run_into_one_line_is_not_a_statement() -> None:
    tree = ("Here is an example directory tree of a complete Debian archive: dists/stable/main/ "
            "dists/stable/main/binary-amd64/ dists/stable/main/source/ ... dists/stable/contrib/ "
            "dists/stable/contrib/source/ ... dists/testing/ dists/testing/main/ ... pool/ "
            "pool/main/a/ pool/main/a/apt/ ...")
    assert statement(tree) is None
    prose = "Python packages follow a policy; see /usr/share/doc/python/python-policy.txt.gz for it."
    assert statement(prose) == prose
    assert statement("Edit /etc/fstab as root.") == "Edit /etc/fstab as root."  # one path is prose


def test_a_passage_cut_mid_sentence_under_its_title_offers_no_piece() -> None:
    passage = ("Chapter 8. Basic Configuration...\n\nused in writing the file, the bytes are "
               "misinterpreted. Thus a French text may look illegible.")
    units = block_units(whole(passage, "p"), Texts(p=passage))
    assert [u.text for u in units] == ["Thus a French text may look illegible."]

