"""The offline extractive answerer: best-supported, non-redundant sentences with citations."""

from __future__ import annotations

from answer_helpers import BERLIN, PARIS, TRAINS, context

from rag.generate.extractive import extractive_answer, pick_sentences, score_sentences


def test_the_answer_copies_the_sentence_that_covers_the_question_and_cites_it() -> None:
    ctx = context("When was the Eiffel Tower completed?", BERLIN, PARIS)
    found = extractive_answer(ctx.query, ctx, k=1)
    text, note = found.text, found.note
    assert text == "The Eiffel Tower was completed in 1889 for the World's Fair. [Source 2]"
    assert note == ""


def test_sentences_without_query_words_are_never_picked_and_k_is_respected() -> None:
    ctx = context("capital of Germany and France", PARIS, BERLIN, TRAINS)
    picked, _ = pick_sentences(ctx.query, ctx, k=5)
    assert {p.text for p in picked} == {
        "Paris is the capital of France.",
        "Berlin is the capital of Germany.",
    }
    assert len(pick_sentences(ctx.query, ctx, k=1)[0]) == 1


def test_redundant_sentences_are_skipped() -> None:
    ctx = context("capital of France", PARIS, "Paris is the capital of France!")
    picked, _ = pick_sentences(ctx.query, ctx, k=3)
    assert [p.text for p in picked] == ["Paris is the capital of France."]
    assert picked[0].n == 1  # the better-ranked block wins the tie


def test_rank_breaks_ties_but_never_outvotes_coverage() -> None:
    ctx = context("Reichstag Bundestag", PARIS, BERLIN)
    best = score_sentences(ctx.query, ctx)[0]
    assert best.n == 2 and best.coverage == 1.0


def test_no_overlap_quotes_the_best_ranked_source_and_says_so() -> None:
    ctx = context("submarine warfare", BERLIN, PARIS)
    found = extractive_answer(ctx.query, ctx)
    text, note = found.text, found.note
    assert text == "Berlin is the capital of Germany. [Source 1]"
    assert "no sentence shares a word" in note


def test_empty_context_gives_an_empty_answer() -> None:
    ctx = context("anything")
    found = extractive_answer("anything", ctx)
    assert (found.text, found.note, found.quotes) == ("", "", ())


def test_sentences_far_weaker_than_the_best_one_stay_out() -> None:
    ctx = context(
        "How long do deleted notes stay in the Trash?",
        "Deleted notes stay in the Trash for 30 days.",
        "Vault notes are encrypted.",
    )
    picked, _ = pick_sentences(ctx.query, ctx, k=3)
    assert [p.text for p in picked] == ["Deleted notes stay in the Trash for 30 days."]
