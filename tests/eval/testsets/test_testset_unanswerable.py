"""Questions a collection cannot answer: another source's questions are kept only when the
collection does not hold their content words together; names it never mentions are asked
about; every row is a valid unanswerable QA row that says where it came from."""

from __future__ import annotations

import json
from pathlib import Path

from eval.data.qa import item_from_row
from eval.testsets.unanswerable import (
    CollectionVocabulary,
    entities,
    from_entities,
    from_questions,
    unanswerable_rows,
)

COLLECTION = {
    "apt.txt": "APT downloads packages from the archive and resolves their dependencies.\n\n"
               "The sources.list file tells APT which mirrors to download packages from.",
    "ssh.txt": "SSH keys let you log in to a remote server without typing a password.",
}
OTHER = [
    ("o1", "How much does the Plus plan cost per month?"),
    ("o2", "Which mirrors does APT download packages from?"),  # answered here
    ("o3", "How do I log in to a remote server without a password?"),  # answered here
    ("o4", "Can support reset a forgotten vault passphrase?"),
    ("o5", "How much does the Plus plan cost per month?"),  # a duplicate
    ("o6", "What is it?"),  # no content words
]


def test_questions_whose_words_this_collection_holds_are_dropped() -> None:
    vocabulary = CollectionVocabulary(COLLECTION.values())
    dropped: dict[str, int] = {}
    rows = from_questions(OTHER, vocabulary, "file:other.jsonl", dropped)
    assert [r["provenance"]["original_id"] for r in rows] == ["o1", "o4"]
    assert dropped == {"its words are in this collection": 2, "duplicate question": 1,
                       "too few content words": 1}
    for row in rows:
        assert item_from_row(row, "u", 1).answerable is False
        assert row["provenance"]["rule"] == "other-source"
        assert row["provenance"]["paragraph_overlap"] < 0.5


def test_names_absent_from_the_collection_become_questions() -> None:
    text = ("Everyone can use Lumen Writer, which syncs with LumenSync. Open the menu and choose "
            "Export. Single sign-on uses SAML, and the Trash keeps drafts; trash is emptied monthly. "
            "Admins of APT mirrors use Python3.")
    names = entities([text])
    assert {"LumenSync", "SAML", "Python3", "APT", "Lumen", "Writer"} <= set(names)
    assert "Open" not in names  # starts a sentence
    assert "Trash" not in names  # also written in lower case: an ordinary word
    assert names.index("LumenSync") < names.index("Lumen")  # the most name-like first
    vocabulary = CollectionVocabulary(COLLECTION.values())
    dropped: dict[str, int] = {}
    rows = from_entities(names, vocabulary, "file:x", 3, dropped)
    assert len(rows) == 3 and dropped.get("entity is in this collection", 0) >= 1  # APT is here
    assert all("APT" not in r["question"] for r in rows)
    assert rows[0]["question"] == f"What is {rows[0]['provenance']['entity']}?"
    for row in rows:
        assert item_from_row(row, "u", 1).answerable is False


def test_rows_from_a_qa_file_and_from_a_beir_folder(tmp_path: Path) -> None:
    qa = tmp_path / "other.jsonl"
    qa.write_text("".join(json.dumps({"id": i, "question": q}) + "\n" for i, q in OTHER[:4]))
    report = unanswerable_rows(COLLECTION, str(qa), max_rows=4)
    assert report.offered == 4
    rules = [r["provenance"]["rule"] for r in report.rows]
    assert rules.count("other-source") == 2 and rules.count("absent-entity") == 1
    assert all(r["provenance"]["from"] == "file:other.jsonl" for r in report.rows)
    beir = tmp_path / "beir"
    beir.mkdir()
    (beir / "queries.jsonl").write_text(json.dumps({"_id": "b1", "text": OTHER[3][1]}) + "\n")
    (beir / "corpus.jsonl").write_text(json.dumps({"_id": "d1", "text": "Vaults in KeyVaultPro."})
                                       + "\n")
    rows = unanswerable_rows(COLLECTION, str(beir), max_rows=3).rows
    assert [r["provenance"]["rule"] for r in rows] == ["other-source", "absent-entity"]
    assert rows[1]["provenance"]["entity"] == "KeyVaultPro"
