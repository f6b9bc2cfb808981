"""rag.text: the one tokenizer for rules (Unicode words) and the hashing embedder's own form."""

from __future__ import annotations

from rag.embed.hashing import features
from rag.text import content_words, feature_words, numbers, split_sentences, words


def test_words_keep_every_script_and_inner_apostrophes_and_drop_citations() -> None:
    assert words("Don't mix Café, Zürich and Москва [Source 2]") == [
        "don't", "mix", "café", "zürich", "and", "москва"]  # fmt: skip
    assert words("rate_limit 2.5") == ["rate", "limit", "2", "5"]  # "_" and "." split


def test_content_words_drop_stopwords_and_single_characters() -> None:
    assert content_words("What is the refund window for a Kindle in Québec?") == [
        "refund", "window", "kindle", "québec"]  # fmt: skip


def test_feature_words_are_the_hashing_embedders_nfkc_casefolded_runs() -> None:
    # its vectors (and so the embedding cache's keys) depend on exactly this form
    assert feature_words("ＦＵＬＬ width Straße rate_limit don't") == [
        "full", "width", "strasse", "rate_limit", "don", "t"]  # fmt: skip
    assert "w:rate_limit" in features("rate_limit")


def test_numbers_and_sentences() -> None:
    assert numbers("It costs 1,200 dollars for twenty days [Source 3]") == {"1200", "twenty"}
    text = "First claim. Second one!\n\n- a bullet"
    assert [text[s.start : s.end] for s in split_sentences(text)] == [
        "First claim.", "Second one!", "- a bullet"]  # fmt: skip
