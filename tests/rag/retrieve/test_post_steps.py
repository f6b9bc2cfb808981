"""Post-retrieval steps: threshold with fallback, content penalties, recency, tag boost, dedupe."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from retrieve_helpers import by_id, candidates, chunk, snapshot

from rag.retrieve.post import ORDER, POST_STEPS, PostContext, enabled_steps, postprocess
from rag.retrieve.post.dedupe import dedupe
from rag.retrieve.post.penalties import apply_penalties, detect_content_type
from rag.retrieve.post.recency import chunk_date, decay_factor, time_decay, time_window
from rag.retrieve.post.tags import tag_boost
from rag.retrieve.post.threshold import apply_threshold
from rag.settings.retrieval import PostprocessConfig

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)


def test_threshold_keeps_what_passes_and_records_every_decision() -> None:
    cands = candidates([("a", 0.9), ("b", 0.31), ("c", 0.2)])
    out = apply_threshold(cands, 0.3)
    assert [c.chunk_id for c in out.candidates] == ["a", "b"]
    assert out.report.removed == ("c",)
    assert out.report.status == "ok"
    assert out.report.decisions["c"].startswith("below")
    assert out.candidates[0].stage_scores["threshold_passed"] == 1.0


def test_threshold_falls_back_to_the_top_n_when_nothing_passes() -> None:
    cands = candidates([("a", 0.25), ("b", 0.2), ("c", 0.1)])
    out = apply_threshold(cands, 0.4, fallback_n=2)  # Adaptive's 0.40
    assert [c.chunk_id for c in out.candidates] == ["a", "b"]
    assert out.report.status == "fallback"
    assert "kept the top 2" in out.report.reason
    assert out.report.decisions["a"].endswith("kept by fallback")
    assert apply_threshold(cands, 0.4).candidates == ()  # no fallback asked: nothing left


def test_threshold_can_read_a_retrievers_raw_score() -> None:
    from retrieve_helpers import ranked

    from rag.retrieve.fusion import rrf

    fused = rrf(
        [ranked("bm25", [("a", 5.0), ("b", 4.0)]), ranked("dense", [("b", 0.5), ("c", 0.2)])]
    )
    out = apply_threshold(fused, 0.3, on="dense")  # IntelliDocs: cosine >= 0.3
    assert [c.chunk_id for c in out.candidates] == ["b"]
    assert "dense=none" in out.report.decisions["a"]  # BM25-only chunk has no cosine


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Table of Contents\n1 Intro .......... 1\n2 Setup ........ 4", "toc"),
        (
            "1 Introduction ........ 3\n2 Methods ........ 7\n3 Results ........ 12\n4 Notes  19",
            "toc",
        ),
        ("Glossary\nBM25: a ranking function", "glossary"),
        (
            "Embedding: a vector for a text\nChunk: a span of a document\nRRF: rank fusion",
            "glossary",
        ),
        ("Image credits\nCover: J. Doe", "image_credits"),
        (
            "Photo: Jane Doe / Getty Images\nCover image courtesy of NASA\n© 2021 Reuters",
            "image_credits",
        ),
        (
            "BM25 ranks documents by term frequency and inverse document frequency. It is a "
            "strong baseline for keyword search.",
            None,
        ),
        ("", None),
    ],
)
def test_content_types_are_detected_from_text(text: str, kind: str | None) -> None:
    assert detect_content_type(text) == kind


def test_penalties_scale_scores_by_the_seed_factors_and_resort() -> None:
    toc = chunk("toc", "Contents\nIntro ..... 1\nEnd ..... 9")
    prose = chunk("prose", "Qdrant stores vectors and payloads for filtering.")
    cands = candidates([("toc", 1.0), ("prose", 0.6)], toc=toc, prose=prose)
    before = snapshot(cands)
    out = apply_penalties(cands, {"glossary": 0.7, "toc": 0.5, "image_credits": 0.6})
    assert snapshot(cands) == before
    assert [(c.chunk_id, c.score) for c in out.candidates] == [("prose", 0.6), ("toc", 0.5)]
    assert by_id(out.candidates)["toc"].stage_scores["content_penalty"] == 0.5
    assert out.report.decisions["toc"] == "toc: ×0.5"


def test_decay_halves_the_score_every_half_life() -> None:
    assert decay_factor(0, 7) == 1.0
    assert decay_factor(7, 7) == pytest.approx(0.5)
    assert decay_factor(21, 7) == pytest.approx(0.125)
    assert decay_factor(70, 7, floor=0.2) == 0.2
    assert decay_factor(-3, 7) == 1.0  # dated in the future: no bonus


def test_time_decay_uses_created_at_and_leaves_undated_chunks_alone() -> None:
    week_old = chunk("old", created_at=(NOW - timedelta(days=14)).isoformat())
    fresh = chunk("new", created_at=(NOW - timedelta(hours=1)).timestamp())
    cands = candidates([("old", 1.0), ("new", 0.6), ("undated", 0.5)], old=week_old, new=fresh)
    out = time_decay(cands, half_life_days=7, now=NOW)
    scores = {c.chunk_id: c.score for c in out.candidates}
    assert scores["old"] == pytest.approx(0.25)
    assert scores["new"] == pytest.approx(0.6 * 0.5 ** (1 / 24 / 7))
    assert scores["undated"] == 0.5
    assert [c.chunk_id for c in out.candidates] == ["new", "undated", "old"]


def test_time_window_keeps_only_recent_dated_chunks() -> None:
    cands = candidates(
        [("a", 1.0), ("b", 0.9), ("c", 0.8)],
        a=chunk("a", created_at=(NOW - timedelta(hours=30)).isoformat()),
        b=chunk("b", created_at=(NOW - timedelta(hours=3)).isoformat()),
    )
    day = time_window(cands, hours=24, now=NOW)
    assert [c.chunk_id for c in day.candidates] == ["b"]
    assert day.report.decisions["c"] == "dropped: no created_at"
    assert [c.chunk_id for c in time_window(cands, hours=48, now=NOW).candidates] == ["a", "b"]


def test_chunk_date_reads_iso_epoch_and_naive_times_as_utc() -> None:
    assert chunk_date(chunk("x", created_at="2025-01-02T03:04:05Z")) == datetime(
        2025, 1, 2, 3, 4, 5, tzinfo=UTC
    )
    assert chunk_date(chunk("x", modified="2025-01-02T03:04:05")) == datetime(
        2025, 1, 2, 3, 4, 5, tzinfo=UTC
    )
    assert chunk_date(chunk("x", created_at=0)) == datetime(1970, 1, 1, tzinfo=UTC)
    assert chunk_date(chunk("x", created_at="yesterday")) is None


def test_tag_boost_by_configured_tags_and_by_query_overlap() -> None:
    cands = candidates(
        [("plain", 1.0), ("policy", 0.9), ("budget", 0.8)],
        policy=chunk("policy", tags=("Policy", "hr")),
        budget=chunk("budget", tags="budget review, finance"),
    )
    configured = by_id(tag_boost(cands, "", {"policy": 0.2}).candidates)
    assert configured["policy"].score == pytest.approx(0.9 * 1.2)
    assert configured["plain"].score == 1.0
    # "budget review finance": 2 of its 3 tag words are in the query -> ×(1 + 0.5 * 2/3)
    by_query = by_id(tag_boost(cands, "What did the budget review say?", {}, 0.5).candidates)
    assert by_query["budget"].score == pytest.approx(0.8 * (1 + 0.5 * 2 / 3))
    assert by_query["budget"].stage_scores["tag_boost"] == pytest.approx(1 + 0.5 * 2 / 3)


def test_dedupe_drops_near_duplicates_of_better_candidates() -> None:
    cands = candidates([("a", 0.9), ("a2", 0.8), ("b", 0.7), ("novec", 0.6)])
    vectors = {
        "a": np.array([1.0, 0.0, 0.0]),
        "a2": np.array([0.99, 0.05, 0.0]),  # cosine ≈ 0.9987 to "a"
        "b": np.array([0.0, 1.0, 0.0]),
    }
    out = dedupe(cands, vectors, threshold=0.95)
    assert [c.chunk_id for c in out.candidates] == ["a", "b", "novec"]
    assert out.report.decisions["a2"].startswith("dropped: cosine 0.99")
    assert out.report.decisions["novec"] == "kept: no vector"
    assert [c.chunk_id for c in dedupe(cands, vectors, threshold=0.9999).candidates] == [
        "a",
        "a2",
        "b",
        "novec",
    ]


def test_postprocess_reports_every_step_and_why_the_off_ones_are_off() -> None:
    cands = candidates([("a", 0.9), ("b", 0.1)])
    kept, reports = postprocess(cands, PostprocessConfig(threshold=0.5), PostContext(now=NOW))
    assert [c.chunk_id for c in kept] == ["a"]
    assert [r.step for r in reports] == list(ORDER)
    status = {r.step: (r.status, r.reason) for r in reports}
    assert status["threshold"] == ("ok", "")
    assert status["time_decay"] == ("skipped", "postprocess.time_decay_half_life_days is not set")


def test_dedupe_without_vectors_is_skipped_and_says_so() -> None:
    cands = candidates([("a", 0.9)])
    kept, reports = postprocess(cands, PostprocessConfig(dedupe_threshold=0.95))
    report = {r.step: r for r in reports}["dedupe"]
    assert kept == cands
    assert report.status == "skipped" and "no candidate embeddings" in report.reason


def test_every_registered_step_has_a_place_in_the_order() -> None:
    assert sorted(ORDER) == POST_STEPS.names()
    assert enabled_steps(PostprocessConfig()) == []
    everything = PostprocessConfig(
        threshold=0.1, content_penalties=True, time_window_hours=24,
        time_decay_half_life_days=7, tag_boost={"x": 0.1}, dedupe_threshold=0.95,
    )  # fmt: skip
    assert enabled_steps(everything) == list(ORDER)
