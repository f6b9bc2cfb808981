"""The abstain stage inside the real pipeline: the offline extractive path and the LLM path (the
local fake OpenAI server) decline with the preset's wording and the reason in the trace; an
off-topic intent that halted the run is declined too; in-domain questions are still answered."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import pytest
from answer_helpers import answer_config, lumen_collection
from fake_openai import FakeOpenAI, reply, status

from rag.abstain.stage import AbstainDecision, AbstainSignals, decide
from rag.context.prompts import INSUFFICIENT
from rag.grounding.retry import GroundedAnswer
from rag.index import Collection
from rag.memory import MemoryStore
from rag.pipeline import StageEnv, initial_state, run_query, run_stages
from rag.query.intent.router import IntentResult
from rag.query.understand import Understanding
from rag.settings.abstain import AbstainConfig
from rag.trace import Trace
from rag.turn import finish_turn, start_turn

IN_DOMAIN = "How long do deleted notes stay in the Trash?"
OFF_DOMAIN = "What is the capital of France?"
ON = {"abstain.enabled": True}


@pytest.fixture(scope="module")
def collection() -> Collection:
    return lumen_collection("abstain-stage")


def decision(trace: Trace) -> AbstainDecision:
    found = trace.output(AbstainDecision)
    assert found is not None, "the abstain stage produced no decision"
    return found


def test_in_domain_question_is_answered_with_relevance_and_evidence(collection: Collection) -> None:
    trace = run_query(IN_DOMAIN, answer_config(collection.name, **ON), collection)
    found = decision(trace)
    assert not found.abstained and found.kind is None
    assert "30 days" in (trace.answer or "")
    assert found.signals.relevance is not None and found.signals.relevance.score > 0.5
    assert found.signals.evidence is not None and found.signals.evidence > 0.5


def test_off_domain_question_is_declined_offline_with_the_reason(collection: Collection) -> None:
    trace = run_query(OFF_DOMAIN, answer_config(collection.name, **ON), collection)
    found = decision(trace)
    assert found.abstained and found.kind == "no_relevant_sentence"
    assert trace.answer == AbstainConfig().message
    assert found.original_answer and found.original_answer != trace.answer  # kept in the trace
    assert "declined" in trace.stage("abstain").reason


def test_weak_evidence_bar_declines_before_the_answer_is_judged(collection: Collection) -> None:
    config = answer_config(collection.name, **ON, **{"abstain.min_evidence": 0.3,
                                                      "abstain.message": "Not in these notes."})
    trace = run_query(OFF_DOMAIN, config, collection)
    assert decision(trace).kind == "weak_evidence" and trace.answer == "Not in these notes."
    answered = run_query(IN_DOMAIN, config, collection)
    assert not decision(answered).abstained


def test_abstain_off_leaves_the_answer_alone(collection: Collection) -> None:
    trace = run_query(OFF_DOMAIN, answer_config(collection.name), collection)
    assert trace.stage("abstain").status == "skipped" and trace.answer != AbstainConfig().message


def test_conversation_stores_the_abstention(collection: Collection, tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "memory.db")
    conversation = store.create("t")
    run = start_turn(store, conversation.id, OFF_DOMAIN, answer_config(collection.name, **ON), collection)
    list(run.tokens())
    _, outcome = finish_turn(store, conversation.id, OFF_DOMAIN, run)
    assert outcome.content == AbstainConfig().message
    assert outcome.metadata["abstained"] == "no_relevant_sentence"


def test_llm_saying_not_in_the_sources_is_an_abstention(collection: Collection, llm: FakeOpenAI) -> None:
    llm.script(reply(INSUFFICIENT), reply("What is in the sources?\nNONCOMMITTAL: yes"))
    config = answer_config(collection.name, **ON, **{"generation.mode": "llm"})
    trace = run_query(OFF_DOMAIN, config, collection)
    found = decision(trace)
    assert found.abstained and found.kind == "llm_declined"
    assert found.signals.relevance is not None and found.signals.relevance.method == "llm"


def test_llm_answer_ungrounded_after_retries_is_declined(collection: Collection, llm: FakeOpenAI) -> None:
    invented = "Deleted notes are printed and mailed to the user every Friday [Source 1]."
    llm.script(reply(invented), reply(invented), reply(invented),
               reply("How are deleted notes delivered?\nNONCOMMITTAL: no"))
    config = answer_config(collection.name, **ON, **{"generation.mode": "llm", "generation.stream": False,
                                                      "grounding.model_check": "llm",
                                                      "grounding.max_retries": 2})
    trace = run_query(IN_DOMAIN, config, collection)
    found = decision(trace)
    assert found.abstained and found.kind == "ungrounded" and "2 retries" in found.reason, found.fired
    assert trace.answer == AbstainConfig().message


def test_llm_relevant_grounded_answer_is_given(collection: Collection, llm: FakeOpenAI) -> None:
    llm.script(reply("Deleted notes stay in the Trash for 30 days [Source 1]."),
               reply("How long are deleted notes kept in the Trash?\nNONCOMMITTAL: no"))
    config = answer_config(collection.name, **ON, **{"generation.mode": "llm",
                                                      "abstain.min_answer_relevance": 0.3})
    trace = run_query(IN_DOMAIN, config, collection)
    found = decision(trace)
    assert not found.abstained, found.fired
    assert found.signals.relevance is not None and found.signals.relevance.score > 0.3


def test_off_topic_intent_that_halted_the_run_is_declined(collection: Collection) -> None:
    config = answer_config(collection.name, **ON)
    intent = IntentResult("off_topic", 0.9, "semantic", "cosine 0.91 with an off-topic exemplar")
    understood = Understanding(OFF_DOMAIN, OFF_DOMAIN, None, intent, None, None, None, (), None,  # type: ignore[arg-type]
                               False)
    state = initial_state(OFF_DOMAIN, config)
    state = replace(state, halted="intent 'off_topic'", answer="I'm designed to help with documents.",
                    artifacts=MappingProxyType({"understand": understood}))
    trace = Trace(OFF_DOMAIN, config.name)
    final = run_stages(state, StageEnv(config, collection), trace, first="generate")
    assert [r.status for r in trace.records] == ["skipped", "skipped", "ok"]
    found = decision(trace)
    assert found.kind == "out_of_scope" and final.answer == AbstainConfig().message


@pytest.mark.parametrize(
    ("signals", "settings", "kind"),
    [
        (AbstainSignals(evidence=0.2), {"min_evidence": 0.3}, "weak_evidence"),
        (AbstainSignals(evidence=0.4), {"min_evidence": 0.3}, None),
        (AbstainSignals(evidence=0.2), {}, None),  # no bar: the rule is off
        (AbstainSignals(no_context="best score 0.001 < 0.005"), {}, "no_context"),
        (AbstainSignals(no_context="x"), {"on_no_context": False}, None),
        (AbstainSignals(grounded=False, grounded_share=0.2, retries=2), {}, "ungrounded"),
        (AbstainSignals(confidence=0.1), {"min_confidence": 0.4}, "low_confidence"),
        # an extractive answer with no whole sentence to quote (issue 27) is declined, and says so
        (AbstainSignals(answer_mode="extractive"), {}, "no_relevant_sentence"),
        (AbstainSignals(answer_mode="extractive"), {"on_no_relevant_sentence": False}, None),
        # rules fire in order: off-topic beats weak evidence
        (AbstainSignals(evidence=0.1, out_of_scope="x"), {"min_evidence": 0.3}, "out_of_scope"),
    ],
)
def test_decide_applies_the_rules_in_order(
    signals: AbstainSignals, settings: dict[str, object], kind: str | None
) -> None:
    found = decide(signals, AbstainConfig.model_validate(settings), "an answer")
    assert found.kind == kind and found.abstained is (kind is not None)
    assert found.original_answer == "an answer"


def test_echomind_no_rag_fallback_declines(collection: Collection) -> None:
    config = answer_config(collection.name, **ON, **{"context.relevance_threshold": 10.0})
    trace = run_query(IN_DOMAIN, config, collection)
    found = decision(trace)
    assert found.kind == "no_context" and trace.answer == AbstainConfig().message


def test_grounded_but_irrelevant_is_said(collection: Collection) -> None:
    config = answer_config(collection.name, **ON, **{"abstain.on_no_relevant_sentence": False})
    trace = run_query(OFF_DOMAIN, config, collection)
    found = decision(trace)
    assert not found.abstained and found.signals.grounded
    assert found.notes and found.notes[0].startswith("grounded but irrelevant")
    answered = decision(run_query(IN_DOMAIN, config, collection))
    assert answered.notes == ()


def test_a_run_halted_for_another_reason_is_not_an_abstention(collection: Collection) -> None:
    config = answer_config(collection.name, **ON)
    state = replace(initial_state("hello", config), halted="intent 'greeting'", answer="Hello!")
    trace = Trace("hello", config.name)
    final = run_stages(state, StageEnv(config, collection), trace, first="abstain")
    assert trace.stage("abstain").status == "skipped" and final.answer == "Hello!"


def test_a_decline_is_not_served_again_from_the_semantic_cache(collection: Collection) -> None:
    cache = {"query.enabled": True, "query.cache.enabled": True, "query.cache.ttl_s": 600.0,
             "query.intent.enabled": False, "query.cache.capacity": 7}  # a cache of its own
    config = answer_config(collection.name, **ON, **cache)
    first = run_query(OFF_DOMAIN, config, collection)
    assert decision(first).abstained
    again = run_query(OFF_DOMAIN, config, collection)
    assert again.stage("understand").status != "cache_hit"
    assert decision(again).abstained  # decided afresh, with its reason
    answered = run_query(IN_DOMAIN, config, collection)
    assert not decision(answered).abstained
    assert run_query(IN_DOMAIN, config, collection).stage("understand").status == "cache_hit"


def test_evidence_is_read_on_the_retrieved_hit_not_its_expanded_parent() -> None:
    from answer_helpers import candidates, context

    from rag.abstain.stage import _passages

    hit = candidates("Deleted notes stay in the Trash for 30 days.")
    built = context(IN_DOMAIN, "Deleted notes stay in the Trash for 30 days.")
    parent = "A long parent section about many other things. " * 40 + hit[0].chunk.text
    block = replace(built.blocks[0], text=parent, chunk_id="parent", hit_ids=(hit[0].chunk_id,))
    state = replace(initial_state(IN_DOMAIN, answer_config("x")), candidates=tuple(hit))
    state = state.with_artifact("context", replace(built, blocks=(block,)))
    assert _passages(state) == [hit[0].chunk.text]
    no_rag = state.with_artifact("context", replace(built, no_rag=True))
    assert _passages(no_rag) == []


def test_the_decision_reads_the_answer_grounding_kept_not_the_first_one(
    collection: Collection, llm: FakeOpenAI
) -> None:
    """The model's first answer is invented; its retry fails, the generate step falls back to
    the extractive answer, and grounding keeps that one: the decision must say extractive."""
    invented = "Deleted notes are printed and mailed to the user every Friday [Source 1]."
    llm.script(reply(invented), *[status(500, "down")] * 8)
    config = answer_config(collection.name, **ON, **{
        "generation.mode": "llm", "generation.stream": False, "grounding.model_check": "llm",
        "grounding.max_retries": 1, "abstain.relevance_method": "offline"})
    trace = run_query(IN_DOMAIN, config, collection)
    grounded = trace.output(GroundedAnswer)
    assert grounded is not None and [it.answer.mode for it in grounded.iterations] == ["llm", "extractive"]
    assert grounded.answer.mode == "extractive"
    assert decision(trace).signals.answer_mode == "extractive"
