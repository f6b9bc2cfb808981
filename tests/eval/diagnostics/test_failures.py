"""Failure classes from real runs over a small collection: each class is produced by a config
that causes it, and the order of the checks is the documented one."""

from __future__ import annotations

import pytest
from answer_helpers import answer_config, lumen_collection
from fake_openai import FakeOpenAI, reply

from eval.diagnostics.failures import CLASSES, HOW_DECIDED, classify
from rag.index import Collection
from rag.pipeline import run_query

QUESTION = "How long do deleted notes stay in the Trash?"


def about(word: str):
    return lambda chunk: word in chunk.text


@pytest.fixture(scope="module")
def collection() -> Collection:
    return lumen_collection("failure-classes")


def kind(collection: Collection, relevant: object = about("Trash"), answerable: bool = True,
         question: str = QUESTION, **overrides: object) -> str:
    trace = run_query(question, answer_config(collection.name, **overrides), collection)
    return classify(trace, relevant, answerable).kind  # type: ignore[arg-type]


def test_a_good_run_is_correct(collection: Collection) -> None:
    assert kind(collection, **{"abstain.enabled": True}) == "correct"


def test_retrieval_miss_when_no_list_holds_a_relevant_chunk(collection: Collection) -> None:
    assert kind(collection, relevant=lambda chunk: False) == "retrieval_miss"


def test_ranking_loss_when_the_relevant_chunk_is_cut_before_the_context(collection: Collection) -> None:
    assert kind(collection, relevant=about("passphrase"), **{"retrieval.top_k": 1}) == "ranking_loss"


def test_context_dilution_when_the_budget_drops_it(collection: Collection) -> None:
    found = kind(collection, relevant=about("passphrase"), **{"retrieval.top_k": 3, "context.top_k": 1})
    assert found == "context_dilution"


def test_abstentions_wrong_and_missed(collection: Collection) -> None:
    strict = {"abstain.enabled": True, "abstain.min_evidence": 0.99}
    assert kind(collection, **strict) == "wrong_abstention"
    assert kind(collection, answerable=False) == "missed_abstention"
    assert kind(collection, answerable=False, **strict) == "correct"


def test_unsupported_answer_when_grounding_fails(collection: Collection, llm: FakeOpenAI) -> None:
    llm.script(reply("Deleted notes are printed and mailed to the user every Friday [Source 1]."))
    assert kind(collection, **{"generation.mode": "llm"}) == "unsupported_answer"


def test_every_class_says_how_it_is_decided() -> None:
    assert set(HOW_DECIDED) == set(CLASSES)
