"""What a run records it was scored on: data and test set hashes that move with any label,
who labelled the set, and the judgments version of a judged set."""

from __future__ import annotations

from dataclasses import replace

import pytest

from eval.data.beir import Span
from eval.data.shapes import BeirDataset
from eval.runs.identity import config_hash, data_hash, judgments_version, labels_kind
from eval.runs.identity import testset_hash as set_hash

DATA = BeirDataset("tiny", {"d1": {"title": "", "text": "alpha"}, "d2": {"title": "", "text": "beta"}},
                   {"q1": "alpha?"}, {"q1": {"d1": 1}}, "h", "src")


def test_hashes_move_with_documents_questions_and_every_label() -> None:
    base = set_hash(DATA)
    assert set_hash(replace(DATA, qrels={"q1": {"d2": 1}})) != base
    assert set_hash(replace(DATA, queries={"q1": "alpha!"})) != base
    assert set_hash(DATA, {"q1": (Span("d1", 0, 3),)}) != set_hash(DATA, {"q1": (Span("d1", 0, 4),)})
    assert set_hash(DATA, nonrelevant={"q1": (Span("d2", 0, 2),)}) != base
    assert data_hash(DATA) == data_hash(replace(DATA, qrels={}, queries={}))  # documents only
    assert data_hash(replace(DATA, corpus={"d1": {"title": "", "text": "alpha!"}})) != data_hash(DATA)
    assert config_hash({"a": 1, "b": {"c": 2}}) == config_hash({"b": {"c": 2}, "a": 1})


@pytest.mark.parametrize(("provenance", "kind"), [
    ({"judged": 5, "mined": 10}, "human-judged"),
    ({"llm-judge": 3, "judged": 2}, "judge-filled"),
    ({"mined": 10, "unanswerable": 4}, "mined"),
    ({"llm:SmolLM2": 4, "mined": 1}, "llm+mined"),
    ({}, "unlabelled"),
])
def test_labels_kind(provenance: dict[str, int], kind: str) -> None:
    assert labels_kind(provenance) == kind


def test_judgments_version_follows_the_judging_file() -> None:
    from eval.judging.store import open_judging

    assert judgments_version("ident-coll", "mined") is None
    store = open_judging("ident-coll", "mined")
    assert judgments_version("ident-coll", "mined") is None  # a file with no judgment yet
    store.judge("q1", ("d1", 0, 5), "relevant", "s1")
    first = judgments_version("ident-coll", "mined")
    store.judge("q1", ("d1", 0, 5), "not_relevant", "s2")
    second = judgments_version("ident-coll", "mined")
    assert first is not None and first.startswith("1 judgments")
    assert second is not None and second.startswith("2 judgments") and second != first


def test_a_stored_set_carrying_the_learned_judges_fill_is_recorded_as_judge_filled() -> None:
    import json

    from eval.runs.identity import dataset_identity
    from eval.testsets.store import set_path

    row = {"id": "q1", "question": "alpha?", "answer": "alpha", "answerable": True,
           "spans": [{"doc": "d1", "start": 0, "end": 5}], "provenance": {"method": "judged"}}
    filled = {**row, "judge_filled": [{"doc": "d2", "start": 0, "end": 4, "p": 0.2}]}
    for name, stored in (("human", row), ("filled", filled)):  # as the Judge page saves them
        path = set_path("ident-fill", name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(stored) + "\n", encoding="utf-8")
    assert dataset_identity(DATA, "ident-fill", "human").labels == "human-judged"
    assert dataset_identity(DATA, "ident-fill", "filled").labels == "judge-filled"


def test_the_command_line_and_evaluate_give_one_stored_set_one_identity() -> None:
    """`eval run/tune --collection C --qa SET` and Evaluate hash the same stored set alike: its
    spans and the passages judged not relevant, read from the set itself (the CLI passed no
    spans from tune and never the not-relevant ones, so the Runs page called them incomparable)."""
    import json
    from types import MappingProxyType

    from eval.data.evalsets import EvalSet
    from eval.judging.export import nonrelevant_spans
    from eval.runs.identity import dataset_identity, evalset_identity
    from eval.testsets.store import read_rows, set_path

    row = {"id": "q1", "question": "alpha?", "answer": "alpha", "answerable": True,
           "spans": [{"doc": "d1", "start": 0, "end": 5}], "provenance": {"method": "judged"},
           "judged_nonrelevant": [{"doc": "d2", "start": 0, "end": 4}]}
    path = set_path("ident-paths", "judged")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    page_set = EvalSet(DATA, MappingProxyType({"q1": (Span("d1", 0, 5),)}),
                       MappingProxyType(nonrelevant_spans(read_rows("ident-paths", "judged"))),
                       "ident-paths / judged", "ident-paths")
    page = evalset_identity(page_set)
    assert dataset_identity(DATA, "ident-paths", "judged") == page  # tune: no spans passed
    assert dataset_identity(DATA, "ident-paths", "judged", page_set.spans) == page  # run
    assert page.labels == "human-judged"
