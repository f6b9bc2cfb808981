"""Axiom's 3-layer intent router: hard rules, semantic exemplars, LLM fallback, default."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_openai import FakeOpenAI, reply, status
from query_helpers import chat_client, local_server

from rag.embed.embedder import TextEmbedder
from rag.query.intent import EXEMPLARS, INTENTS, SemanticRouter, hard_rules, route_intent
from rag.query.intent.evaluate import calibrate
from rag.query.intent.llm import parse_intent
from rag.settings.query import IntentConfig

CFG = IntentConfig()


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[FakeOpenAI, TextEmbedder]]:
    with local_server("hashed-bow-intent-tests") as pair:
        yield pair


@pytest.fixture(scope="module")
def router(server: tuple[FakeOpenAI, TextEmbedder]) -> SemanticRouter:
    return SemanticRouter(server[1], EXEMPLARS)


@pytest.mark.parametrize(("text", "intent", "rule"), [
    ("", "garbage", "too_short"), ("?", "garbage", "too_short"), ("!!!", "garbage", "no_letters"),
    ("12345", "garbage", "no_letters"), ("zzzzzzzzz", "garbage", "repetitive"),
    ("of the and", "garbage", "stopwords_only"), ("asdfgh", "garbage", "keyboard_mash"),
    ("hi", "greeting", "greeting_phrase"), ("Good morning, team!", "greeting", "greeting_phrase"),
    ("thanks a lot!", "gratitude", "gratitude_phrase"), ("Thank you 🙏", "gratitude", "gratitude_phrase"),
    ("Summarize the sync article", "command", "imperative_command"),
    ("list all keyboard shortcuts", "command", "imperative_command"),
])
def test_hard_rules(text: str, intent: str, rule: str) -> None:
    hit = hard_rules(text)
    assert hit is not None and (hit.intent, hit.rule) == (intent, rule)


@pytest.mark.parametrize("text", [
    "hi, how do vaults work?", "why?", "what is it", "Is a qwerty keyboard supported?",
    "listing options for export", "thanks to whom does sync work?",
])
def test_hard_rules_leave_real_questions_alone(text: str) -> None:
    assert hard_rules(text) is None


def test_rules_decide_before_any_embedding(router: SemanticRouter) -> None:
    result = route_intent("hello", CFG, router)
    assert (result.intent, result.layer, result.confidence) == ("greeting", "rules", 1.0)
    assert result.semantic_best is None  # the semantic layer never ran


def test_semantic_layer_decides_at_or_above_the_threshold(router: SemanticRouter) -> None:
    result = route_intent("tell me more", CFG, router)  # an exemplar: cosine 1.0
    assert (result.intent, result.layer) == ("followup", "semantic")
    assert result.confidence == pytest.approx(1.0) and result.nearest_exemplar == "tell me more"
    assert set(result.semantic_scores) == set(INTENTS) and result.needs_retrieval == "maybe"


def test_below_the_threshold_without_llm_the_default_says_why(router: SemanticRouter) -> None:
    result = route_intent("How are vault passphrases stored?", CFG, router)
    assert (result.intent, result.layer, result.confidence) == ("question", "default", 0.0)
    assert "< 0.85" in result.reason and "OPENAI_BASE_URL" in result.reason
    assert result.semantic_score is not None and result.semantic_score < 0.85


def test_llm_fallback_gets_axiom_confidence(server: tuple[FakeOpenAI, TextEmbedder],
                                            router: SemanticRouter) -> None:
    fake, embedder = server
    embedder.embed_documents(["Who will win the next election?"])  # cached: the script goes to chat
    fake.script(reply("off_topic"))
    result = route_intent("Who will win the next election?", CFG, router, chat_client(fake))
    assert (result.intent, result.layer, result.confidence) == ("off_topic", "llm", 0.70)
    prompt = fake.chat_requests[-1].body["messages"][0]["content"]
    assert "Who will win the next election?" in prompt and "first message" in prompt


@pytest.mark.parametrize("behaviour", [status(503), reply("Sorry, I cannot tell.")])
def test_a_failed_llm_layer_falls_back_to_the_default_with_a_warning(
    server: tuple[FakeOpenAI, TextEmbedder], router: SemanticRouter, behaviour: object
) -> None:
    server[1].embed_documents(["Who will win the next election?"])
    server[0].script(behaviour)  # type: ignore[arg-type]
    result = route_intent("Who will win the next election?", CFG, router, chat_client(server[0]))
    assert result.layer == "default" and result.intent == "question"
    assert "LLM fallback failed" in result.reason and result.warnings


def test_without_an_embedder_the_semantic_layer_is_skipped() -> None:
    result = route_intent("tell me more", CFG, router=None)
    assert result.layer == "default" and "semantic layer skipped" in result.reason


def test_calibrated_threshold_is_chosen_from_exemplars_only(router: SemanticRouter) -> None:
    best, curve = calibrate(router, [0.3, 0.5, 0.7, 0.9])
    assert best in (0.3, 0.5, 0.7, 0.9) and dict(curve)[best] == max(a for _, a in curve)
    result = route_intent("more details please", IntentConfig(calibrate_threshold=True), router)
    assert result.threshold == pytest.approx(calibrate(router, tuple(
        round(0.30 + 0.05 * i, 2) for i in range(13)))[0])


def test_parse_intent_reads_loose_replies() -> None:
    assert parse_intent("Intent: off-topic.") == "off_topic"
    assert parse_intent("clarify_needed") == "clarify"
    assert parse_intent("GREETING") == "greeting"
    assert parse_intent("no idea") is None


def test_the_llm_alone_cannot_send_a_question_away_from_the_documents(
    server: tuple[FakeOpenAI, TextEmbedder], router: SemanticRouter
) -> None:
    question = "How are vault passphrases stored?"
    server[1].embed_documents([question])
    server[0].script(reply('{"intent": "off_topic"}'))  # a constrained small model's pick
    guarded = route_intent(question, CFG, router, chat_client(server[0]))
    assert guarded.semantic_best == "question"
    assert (guarded.intent, guarded.layer) == ("question", "default")
    assert "skips the documents" in guarded.reason and guarded.llm_reply == '{"intent": "off_topic"}'
    server[0].script(reply('{"intent": "off_topic"}'))
    alone = route_intent(question, IntentConfig(llm_skip_needs_agreement=False), router,
                         chat_client(server[0]))
    assert (alone.intent, alone.layer) == ("off_topic", "llm")


def test_the_llm_may_pick_an_intent_that_still_searches(
    server: tuple[FakeOpenAI, TextEmbedder], router: SemanticRouter
) -> None:
    server[0].script(reply("command"))
    result = route_intent("How are vault passphrases stored?", CFG, router, chat_client(server[0]))
    assert (result.intent, result.layer) == ("command", "llm")
