"""Test sets stored with a collection: listed with counts and provenance, loaded as QA sets,
replaced atomically, gone with the collection; names cannot leave the collection's folder."""

from __future__ import annotations

import json
import multiprocessing
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from eval.data.qa import load_qa_file
from eval.data.shapes import DatasetError
from eval.testsets.store import (
    delete_set,
    list_sets,
    load_set,
    read_rows,
    resolve_qa,
    save_set,
    set_path,
)
from rag.index import delete_collection, open_collection


@pytest.fixture
def name() -> Iterator[str]:
    collection = open_collection(f"ts-{uuid.uuid4().hex[:8]}", create=True)
    yield collection.name
    try:
        delete_collection(collection.name)
    except ValueError:
        pass  # the test deleted it


def _row(qid: str, method: str = "mined", model: str | None = None) -> dict[str, object]:
    return {
        "id": qid, "question": f"What is {qid}?", "answer": f"{qid} is a thing.",
        "spans": [{"doc": "a.md", "start": 10, "end": 30}],
        "provenance": {"method": method, "rule": "question-heading",
                       "source": {"doc": "a.md", "start": 10, "end": 30},
                       **({"model": model} if model else {})},
    }


UNANSWERABLE = {"id": "u1", "question": "Who founded Zorblax?", "answerable": False,
                "provenance": {"method": "unanswerable", "rule": "absent-entity"}}


def test_a_saved_set_is_listed_with_counts_and_provenance_and_loads(name: str) -> None:
    rows = [_row("q1"), _row("q2"), _row("q3", "llm", model="SmolLM2-135M"),
            _row("q4", "judged"), UNANSWERABLE]
    info = save_set(name, "first", rows)
    assert info.questions == 5 and info.answerable == 4
    assert info.provenance == {"mined": 2, "llm:SmolLM2-135M": 1, "judged": 1, "unanswerable": 1}
    assert info.path == set_path(name, "first") and info.path.is_file()
    assert [i.name for i in list_sets(name)] == ["first"]
    assert list_sets(name)[0] == info  # the listing reads back what was saved
    qa = load_set(name, "first")
    assert qa.name == "first" and [i.qid for i in qa.items] == ["q1", "q2", "q3", "q4", "u1"]
    assert qa.items[0].spans[0].doc == "a.md" and not qa.items[4].answerable
    # the file is an ordinary QA JSONL file; provenance rows are kept as written
    assert load_qa_file(info.path).items == qa.items
    assert read_rows(name, "first")[2]["provenance"]["model"] == "SmolLM2-135M"


def test_saving_again_replaces_the_set_but_keeps_its_creation_time(name: str) -> None:
    first = save_set(name, "s", [_row("q1")])
    second = save_set(name, "s", [_row("q1"), _row("q2", "judged")])
    assert second.created == first.created and second.questions == 2
    assert len(load_set(name, "s").items) == 2
    delete_set(name, "s")
    assert list_sets(name) == [] and not set_path(name, "s").exists()


def test_a_bad_row_is_refused_and_the_stored_set_stays(name: str) -> None:
    save_set(name, "s", [_row("q1")])
    with pytest.raises(DatasetError, match="question"):
        save_set(name, "s", [_row("q1"), {"id": "q2", "question": ""}])
    with pytest.raises(DatasetError, match="duplicate question id"):
        save_set(name, "s", [_row("q1"), _row("q1")])
    with pytest.raises(DatasetError, match="no questions"):
        save_set(name, "s", [])
    assert [i.qid for i in load_set(name, "s").items] == ["q1"]


@pytest.mark.parametrize("bad", ["../x", "a/b", "..", ".hidden", "", "x" * 65, "s.jsonl", "a..b"])
def test_names_that_could_leave_the_folder_are_refused(name: str, bad: str) -> None:
    with pytest.raises(ValueError, match="test set name"):
        save_set(name, bad, [_row("q1")])
    with pytest.raises(ValueError, match="test set name"):
        set_path(name, bad)


def test_an_unknown_collection_or_set_says_what_there_is(name: str) -> None:
    with pytest.raises(ValueError, match="no collection"):
        save_set(f"missing-{uuid.uuid4().hex[:6]}", "s", [_row("q1")])
    save_set(name, "mine", [_row("q1")])
    with pytest.raises(DatasetError, match="it has: mine"):
        load_set(name, "other")


def test_concurrent_saves_never_leave_a_torn_file(name: str) -> None:
    sets = {n: [_row(f"{n}-{i}") for i in range(200)] for n in ("a", "b", "c", "d")}
    errors: list[Exception] = []

    def save(rows: list[dict[str, object]]) -> None:
        try:
            for _ in range(5):
                save_set(name, "shared", rows)
        except (OSError, ValueError) as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=save, args=(rows,)) for rows in sets.values()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    stored = [json.loads(line)["id"] for line in set_path(name, "shared").read_text().splitlines()]
    assert stored in ([r["id"] for r in rows] for rows in sets.values())  # one writer's whole set
    assert not [p for p in set_path(name, "shared").parent.iterdir() if p.suffix == ".tmp"]


def _save_many(collection: str, prefix: str) -> None:
    for i in range(25):
        save_set(collection, f"{prefix}{i}", [_row("q1")])


def test_first_saves_of_many_sets_in_several_processes_keep_every_creation_date(
    name: str,
) -> None:
    context = multiprocessing.get_context("fork")  # the child inherits the test's data folder
    workers = [context.Process(target=_save_many, args=(name, p)) for p in "abcd"]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [w.exitcode for w in workers] == [0, 0, 0, 0]
    dates = json.loads((set_path(name, "a0").parent / ".created.json").read_text())
    assert len(dates) == 100 and len(list_sets(name)) == 100


def test_deleting_the_collection_deletes_its_sets(name: str) -> None:
    path = save_set(name, "s", [_row("q1")]).path
    delete_collection(name)
    assert not path.exists()


def test_resolve_qa_takes_a_stored_name_or_a_path(name: str, tmp_path: Path) -> None:
    save_set(name, "stored", [_row("q1")])
    assert resolve_qa(name, "stored").name == "stored"
    file = tmp_path / "other.jsonl"
    file.write_text(json.dumps(_row("f1")) + "\n")
    assert [i.qid for i in resolve_qa(name, str(file)).items] == ["f1"]
    with pytest.raises(DatasetError, match="has the sets: stored"):
        resolve_qa(name, "nothing-here")
