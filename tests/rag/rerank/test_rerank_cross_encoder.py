"""The real sentence-transformers CrossEncoder path, with a tiny model built by the test."""

from __future__ import annotations

from pathlib import Path

import pytest
from rerank_helpers import TEXTS, candidates
from tiny_cross_encoder import build_tiny_cross_encoder

from rag.rerank import build_scorer
from rag.rerank.base import RerankUnavailable
from rag.rerank.cross_encoder import CrossEncoderScorer, load_cross_encoder
from rag.rerank.rerank import rerank
from rag.settings.rerank import RerankConfig

QUERY = "what happens when two devices change the same paragraph"


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("tiny-cross-encoder")
    return str(build_tiny_cross_encoder(folder, [*TEXTS, QUERY]))


def test_rerank_follows_the_cross_encoders_own_scores(tiny_model: str) -> None:
    cfg = RerankConfig(enabled=True, model=tiny_model, top_n=4, overfetch=2)
    result = rerank(QUERY, candidates(), cfg)
    assert result.status == "ok" and result.path == "cross_encoder" and result.pairs == 8
    import torch  # here, not at the top: every test worker collects this file

    encoder = load_cross_encoder(tiny_model, cfg.max_length)
    logits = encoder.predict([(QUERY, t) for t in TEXTS], activation_fn=torch.nn.Identity())
    expected = sorted(range(8), key=lambda i: -logits[i])[:4]
    assert [c.chunk_id for c in result.after] == [f"c{i + 1}" for i in expected]
    assert [c.stage_scores["rerank_raw"] for c in result.after] == pytest.approx(
        [float(logits[i]) for i in expected], abs=1e-5)
    assert result.pairs_per_second is not None and result.pairs_per_second > 0


def test_model_is_loaded_once_per_name(tiny_model: str) -> None:
    first = CrossEncoderScorer(tiny_model)
    assert CrossEncoderScorer(tiny_model)._encoder is first._encoder
    assert first.score(QUERY, []).scores == ()


def test_no_model_configured_skips_with_the_setting_to_change() -> None:
    result = rerank(QUERY, candidates(), RerankConfig(enabled=True, top_n=3))
    assert result.status == "skipped" and "rerank.model" in result.reason
    assert [c.chunk_id for c in result.after] == ["c1", "c2", "c3"]  # input order, top_n
    assert result.after[0] == candidates()[0]  # untouched: same scores, no rerank scores


def test_a_missing_model_is_a_clear_message_not_a_download(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-model")
    with pytest.raises(RerankUnavailable, match=r"rerank\.model"):
        build_scorer(RerankConfig(model=missing))
    hub_name = rerank(QUERY, candidates(), RerankConfig(model="cross-encoder/not-cached-here"))
    assert hub_name.status == "skipped" and "could not be loaded" in hub_name.reason
