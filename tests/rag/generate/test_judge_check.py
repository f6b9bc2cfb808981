"""The judge check: a model judges (rerank, Self-RAG, grounding, compression) only after it was
right above chance on labelled probes; otherwise the stage's offline form runs and says why."""

from __future__ import annotations

import re
from typing import Any

import pytest
from answer_helpers import PARIS, candidates
from fake_openai import FakeOpenAI, competent_judge, reply

from rag.config import PipelineConfig
from rag.context.builder import build_context
from rag.context.self_rag import verify_chat
from rag.grounding.model_checks import SUPPORT_PROBE, support_probe
from rag.llm.client import Endpoint, LLMClient
from rag.llm.deadline import llm_deadline
from rag.llm.judge_check import binomial_tail, check_judge, forget_checks, needed
from rag.llm.judge_probes import RELEVANCE_PROBES, SUPPORT_PROBES
from rag.llm.usability import counting
from rag.rerank import build_scorer
from rag.rerank.base import RerankUnavailable
from rag.settings.generation import GenerationConfig
from rag.settings.llm import LLMEndpoint
from rag.settings.rerank import RerankConfig


def yes_man(body: dict[str, Any]) -> str | None:
    """Calls every claim supported and grades excerpts by position: what SmolLM2 does."""
    prompt = str(body["messages"][-1]["content"])
    if "Claims:" in prompt:
        return "1: YES"
    if "Rate how relevant each excerpt" in prompt:
        return "\n".join(f"{n}: {n}" for n in re.findall(r"^\[(\d+)\]", prompt, re.M))
    if "Is the passage relevant" in prompt:
        return "7"
    return None


def client(server: FakeOpenAI, **settings: object) -> LLMClient:
    return LLMClient(GenerationConfig.model_validate({"retries": 0, **settings}),
                     [Endpoint("primary", server.base_url, "m")])


def test_probe_sets_hold_eight_items_each() -> None:  # check_judge's default `items`
    assert len(RELEVANCE_PROBES) == len(SUPPORT_PROBES) == 8
    assert needed(8, 0.5) == 7 and needed(8, 0.25) == 5 and needed(2, 0.5) == 3  # 3: never


def test_binomial_tail() -> None:
    assert binomial_tail(0, 8, 0.5) == 1.0
    assert binomial_tail(8, 8, 0.5) == pytest.approx(1 / 256)
    assert binomial_tail(7, 8, 0.5) == pytest.approx(9 / 256)  # 7 of 8 right: p < 0.05
    assert binomial_tail(6, 8, 0.5) > 0.05


def test_a_competent_model_is_trusted_once_and_the_check_is_remembered() -> None:
    with FakeOpenAI(judge=competent_judge) as server, counting() as tally:
        chat = client(server)
        with llm_deadline(0.001):  # probes run outside the query's deadline
            check = check_judge(chat, "support", support_probe, 0.5, SUPPORT_PROBE)
        # 7 of 8 are above chance: settled after the seventh right answer
        assert check is not None and check.trusted and (check.right, check.asked) == (7, 7)
        asked = len(server.probe_requests)
        assert asked == 7
        assert check_judge(chat, "support", support_probe, 0.5, SUPPORT_PROBE) == check
        forget_checks()  # a new process: read from disk, not asked again
        assert check_judge(chat, "support", support_probe, 0.5, SUPPORT_PROBE) == check
        assert len(server.probe_requests) == asked
    assert tally.as_json()["judge_check.support"]["ok"] == 3
    assert "ground.verdicts" not in tally.as_json()  # probe replies are not the run's


def test_a_model_that_agrees_with_everything_is_not_trusted() -> None:
    with FakeOpenAI(judge=yes_man) as server:
        check = check_judge(client(server), "support", support_probe, 0.5, SUPPORT_PROBE)
    # the probes alternate true and false claims: after 2 right of 4, 7 of 8 is out of reach
    assert check is not None and not check.trusted and (check.right, check.asked) == (2, 4)
    assert "not trusted" in check.describe() and "p = 0.965, stopped after 4" in check.describe()


def test_checks_off_or_another_chat_model_check_nothing() -> None:
    with FakeOpenAI(judge=yes_man) as server:
        assert check_judge(client(server, check_judges=False), "support", support_probe, 0.5,
                           SUPPORT_PROBE) is None
        assert not server.probe_requests


def test_an_untrusted_model_does_not_rerank_grade_or_compress(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI(judge=yes_man) as server:
        chat = client(server)
        with pytest.raises(RerankUnavailable, match="keep their retrieval order"):
            build_scorer(RerankConfig(method="llm"), chat)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        config = PipelineConfig.model_validate({
            "generation": {"mode": "llm", "model": "m", "retries": 0},
            "context": {"verify": {"enabled": True, "method": "llm"}, "compression": "llm"}})
        grader, note = verify_chat(config.context.verify.method, LLMEndpoint.of(config.generation))
        assert grader is None and "graded lexically" in note and "relevance probes" in note
        built = build_context("How tall is the Eiffel Tower?", candidates(PARIS), config.context, chat=chat)
    step = next(s for s in built.steps if s.step == "compress:llm")
    assert step.status == "fallback" and "compression (llm) probes" in step.warnings[0]
    # the check failed first: the question itself never went to the model
    assert server.chat_requests and not any("Eiffel" in str(r.body) for r in server.chat_requests)


def test_a_trusted_model_reranks_with_its_grades() -> None:
    with FakeOpenAI(judge=competent_judge) as server:
        scorer = build_scorer(RerankConfig(method="llm"), client(server))
        server.script(reply("1: 3\n2: 9"))
        assert scorer.score("q", ["a", "b"]).scores == (3.0, 9.0)


def test_another_model_served_under_the_same_url_and_name_is_checked_anew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import rag.llm.judge_check as judge_check

    listed = ["small-model"]
    monkeypatch.setattr(judge_check, "served_models", lambda *_a, **_k: tuple(listed))
    with FakeOpenAI(judge=yes_man) as server:
        chat = client(server)
        first = check_judge(chat, "support", support_probe, 0.5, SUPPORT_PROBE)
        assert first is not None and not first.trusted
        listed[0] = "capable-model"  # swapped behind the same URL and configured name
        server.judge = competent_judge
        forget_checks()  # or a minute later: what an endpoint lists is asked again
        second = check_judge(chat, "support", support_probe, 0.5, SUPPORT_PROBE)
        assert second is not None and second.trusted  # not the first model's verdict from disk
