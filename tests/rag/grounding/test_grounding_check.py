"""Per-sentence grounding: Axiom's lexical layer, spans, numbers, citations, model checks, confidence."""

from __future__ import annotations

import numpy as np
import pytest
from answer_helpers import BERLIN, PARIS, context
from fake_openai import FakeOpenAI, reply, status

from rag.context.prompts import INSUFFICIENT
from rag.grounding.check import answer_sentences, check_answer
from rag.grounding.lexical import best_span, overlap
from rag.grounding.model_checks import parse_verdicts, read_verdicts
from rag.llm.client import Endpoint, LLMClient
from rag.settings.generation import GenerationConfig
from rag.settings.grounding import GroundingConfig

CTX = context("How tall is the Eiffel Tower and when was it completed?", PARIS, BERLIN)
OFFLINE = GroundingConfig(model_check="none")


class HashEmbedder:
    """A real (if crude) embedder: bag-of-words vectors, so similar wording means high cosine."""

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        from fake_openai import hashed_embedding

        return np.array([hashed_embedding(t, 256) for t in texts], dtype=np.float32)


def test_axiom_score_is_word_overlap_times_0_6_plus_trigram_overlap_times_0_4() -> None:
    o = overlap("The Eiffel Tower is 330 metres tall and painted gold.", PARIS)
    # content words: eiffel tower 330 metres tall painted gold -> 5/7 found
    assert o.word == pytest.approx(5 / 7)
    assert o.score() == pytest.approx(0.6 * o.word + 0.4 * o.trigram)
    assert overlap("It is.", PARIS).score() == 1.0  # nothing to check


def test_best_span_is_the_shortest_passage_that_supports_the_sentence() -> None:
    span = best_span("Its height is 330 metres.", CTX.blocks)
    assert (span.n, span.text) == (1, "It is 330 metres tall.")
    assert CTX.block(1).text[span.start : span.end] == span.text
    # a second sentence joins the span only when it adds support ("tower" is in the first)
    wide = best_span("The tower is 330 metres tall.", CTX.blocks)
    assert wide.text == CTX.block(1).text[wide.start : wide.end] and wide.text.startswith("The Eiffel Tower")
    assert best_span("Submarines dive deep.", CTX.blocks) is None


def test_clear_cases_are_decided_lexically_with_spans_and_verdicts() -> None:
    answer = (
        "The Eiffel Tower was completed in 1889 for the World's Fair [Source 1]. "
        "Submarines were invented by Leonardo da Vinci [Source 1]."
    )
    report = check_answer(CTX.query, answer, CTX, OFFLINE)
    first, second = report.sentences
    assert (first.verdict, first.method, first.citation_ok) == ("supported", "lexical", True)
    assert first.support.text == "The Eiffel Tower was completed in 1889 for the World's Fair."
    assert answer[first.start : first.end] == first.text
    assert (second.verdict, second.citation_ok) == ("unsupported", False)
    assert report.grounded_share == 0.5 and not report.is_grounded
    assert "Submarines were invented" in report.feedback()


def test_a_number_the_context_never_states_makes_a_sentence_unsupported() -> None:
    report = check_answer(
        CTX.query, "The Eiffel Tower was completed in 1899 for the World's Fair.", CTX, OFFLINE
    )
    check = report.sentences[0]
    assert check.lexical >= 0.8 and check.verdict == "unsupported" and "1899" in check.note
    off = check_answer(CTX.query, check.text, CTX, OFFLINE.model_copy(update={"check_numbers": False}))
    assert off.sentences[0].verdict == "supported"


def test_citations_must_exist_and_support_the_sentence() -> None:
    report = check_answer(
        CTX.query,
        "The Eiffel Tower is 330 metres tall [Source 2]. "
        "Berlin is the capital of Germany [Source 7]. Paris is the capital of France.",
        CTX,
        OFFLINE,
    )
    wrong, missing, uncited = report.sentences
    assert wrong.citation_ok is False and "best support: [Source 1]" in wrong.citation_problem
    assert missing.citation_ok is False and "[Source 7], which does not exist" in missing.citation_problem
    assert uncited.citation_ok is None and uncited.citation_problem == "no [Source N] citation"
    assert len(report.citation_problems) == 3


def test_citation_fragments_join_the_sentence_and_refusals_are_not_checked() -> None:
    text = f"Paris is the capital of France. [Source 1] {INSUFFICIENT}"
    sentences = answer_sentences(text)
    assert [s.text for s in sentences] == [
        "Paris is the capital of France. [Source 1]",
        INSUFFICIENT,
    ]
    report = check_answer(CTX.query, text, CTX, OFFLINE)
    assert [s.verdict for s in report.sentences] == ["supported", "not_checked"]
    assert report.sentences[0].cited == (1,) and report.grounded_share == 1.0


def test_the_ambiguous_band_goes_to_the_embedding_check_offline() -> None:
    sentence = "Germany's capital city is Berlin, where the Bundestag sits."
    lexical_only = check_answer(CTX.query, sentence, CTX, OFFLINE)
    assert lexical_only.sentences[0].verdict == "ambiguous" and lexical_only.warnings == ()
    report = check_answer(
        CTX.query, sentence, CTX, GroundingConfig(embedding_threshold=0.3), embedder=HashEmbedder()
    )
    check = report.sentences[0]
    assert check.method == "embedding" and check.embedding == check.score > 0.3
    assert check.verdict == "supported" and report.checks == ("lexical", "embedding")
    strict = check_answer(
        CTX.query, sentence, CTX, GroundingConfig(embedding_threshold=0.99), embedder=HashEmbedder()
    )
    assert strict.sentences[0].verdict == "unsupported"


def test_llm_verification_settles_the_band_when_an_endpoint_exists() -> None:
    sentence = "Germany's capital city is Berlin, where the Bundestag sits."
    with FakeOpenAI() as server:
        client = LLMClient(GenerationConfig(retries=0), [Endpoint("primary", server.base_url, "m")])
        server.script(reply("1: YES 0.9"), status(500))
        yes = check_answer(CTX.query, sentence, CTX, GroundingConfig(), chat=client)
        failed = check_answer(CTX.query, sentence, CTX, GroundingConfig(), chat=client)
        prompt = server.chat_requests[0].body["messages"][0]["content"]
    assert (yes.sentences[0].verdict, yes.sentences[0].method, yes.sentences[0].llm) == (
        "supported",
        "llm",
        0.9,
    )
    assert "1. " + sentence in prompt and "[Source 1" in prompt
    assert (
        failed.sentences[0].verdict == "ambiguous"
        and "LLM verification failed (server)" in failed.warnings[0]
    )


def test_verdict_lines_are_parsed_robustly() -> None:
    assert parse_verdicts("1: YES 0.8\n2: no 0.9\n3) YES\n9: YES 1", 3) == {
        1: 0.8,
        2: pytest.approx(0.1),
        3: 1.0,
    }
    assert parse_verdicts("I think so.", 2) == {}
    # a small model's formats: a "Claim" prefix, bold, other words for yes/no, a 0-10 confidence
    # (ignored: the verdict decides), a claim answered twice (the first answer counts)
    messy = "Claim 1: **YES** (confidence 8)\n**2.** UNSUPPORTED 0.3\n1: NO\n3 - true"
    assert read_verdicts(messy, 3) == ({1: 1.0, 2: 0.3, 3: 1.0}, 1)


def test_confidence_is_relevance_times_grounding_with_a_sufficiency_check() -> None:
    report = check_answer(CTX.query, "The Eiffel Tower is 330 metres tall [Source 1].", CTX, OFFLINE)
    assert report.relevance == pytest.approx(1.0)  # every query content word is in block 1
    # the answer says how tall, not when completed: it meets 3 of the question's 4 words
    assert report.answer_fit == pytest.approx(0.75) and "75%" in report.answer_fit_reason
    capped = min(report.relevance, report.answer_fit)
    assert report.confidence == pytest.approx(capped * report.grounded_share)
    assert report.confidence_level == "high" and report.sufficiency.is_sufficient
    narrow = context("Eiffel architect salary pension", PARIS)
    thin = check_answer(narrow.query, "The Eiffel Tower was completed in 1889 [Source 1].", narrow, OFFLINE)
    assert (
        thin.sufficiency.missing == ("architect", "salary", "pension") and not thin.sufficiency.is_sufficient
    )
    assert thin.confidence == pytest.approx(0.25) and thin.confidence_level == "low"


def test_a_model_that_fails_its_judge_check_does_not_settle_the_band() -> None:
    sentence = "Germany's capital city is Berlin, where the Bundestag sits."

    def yes_to_everything(body: dict[str, object]) -> str | None:
        return "1: YES" if "Claims:" in str(body) else None

    with FakeOpenAI(judge=yes_to_everything) as server:
        client = LLMClient(GenerationConfig(retries=0), [Endpoint("primary", server.base_url, "m")])
        with_embedder = check_answer(CTX.query, sentence, CTX, GroundingConfig(model_check="llm"),
                                     chat=client, embedder=HashEmbedder())
        alone = check_answer(CTX.query, sentence, CTX, GroundingConfig(), chat=client)
        assert not server.chat_requests  # the answer's sentence never went to the model
    assert with_embedder.sentences[0].method == "embedding"
    assert "support probes" in with_embedder.warnings[0] and "not trusted" in with_embedder.warnings[0]
    assert alone.sentences[0].verdict == "ambiguous" and with_embedder.checks == ("lexical", "embedding")
