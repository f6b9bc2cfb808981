"""Guarded spell correction against a collection vocabulary, and the semantic cache."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from query_helpers import local_server

from rag.embed.embedder import TextEmbedder
from rag.query.cache import SemanticCache, cache_for, key_terms
from rag.query.spell import Vocabulary, correct, edit_distance, similarity
from rag.settings.query import CacheConfig, SpellConfig

TEXTS = [
    "Restore an older version of a note from the version history.",
    "A conflict copy appears when two devices change the same paragraph.",
    "Search operators: tag, in, before, after. Search the encryption settings.",
    "The vault passphrase cannot be recovered without the recovery phrase.",
]
VOCAB = Vocabulary.from_texts(TEXTS)
SPELL = SpellConfig(enabled=True)


def test_typos_are_corrected_from_the_collection_vocabulary() -> None:
    result = correct("How do I restor an older verison of a note?", VOCAB, SPELL)
    assert result.corrected == "How do I restore an older version of a note?"
    assert [(c.word, c.replacement, c.distance) for c in result.changes] == [
        ("restor", "restore", 1), ("verison", "version", 1)]
    assert result.word_overlap == pytest.approx(8 / 10) and not result.reverted


def test_capitals_acronyms_short_and_non_ascii_words_are_left_alone() -> None:
    assert correct("Serch operators", VOCAB, SPELL).corrected == "Search operators"
    for query in ("BM25 KPIs", "the cat", "Zürich vault"):
        assert correct(query, VOCAB, SPELL).changes == ()


def test_002_guards_revert_corrections_that_change_too_much() -> None:
    one_word = correct("encyrption", VOCAB, SPELL)  # a one-word query shares 0% of its words
    assert one_word.reverted and one_word.corrected == "encyrption"
    assert one_word.changes[0].replacement == "encryption" and "0%" in one_word.reason
    loose = correct("vautl pasphrase", VOCAB, SpellConfig(enabled=True, min_word_overlap=0.0,
                                                           min_char_similarity=0.95))
    assert loose.reverted and "similar by edit distance" in loose.reason


def test_a_common_english_word_is_never_changed_even_when_the_collection_lacks_it() -> None:
    vocab = Vocabulary.from_texts(["Deleted notes: recovery of a deleted note from the trash."])
    result = correct("how do i recover a deleetd note", vocab, SPELL)  # issue 12's newcomer
    assert result.corrected == "how do i recover a deleted note"
    assert [(c.word, c.replacement) for c in result.changes] == [("deleetd", "deleted")]


def test_spell_skips_say_why() -> None:
    assert correct("restor", VOCAB, SpellConfig()).reason == "spell correction disabled"
    assert "no collection vocabulary" in correct("restor", None, SPELL).reason


def test_edit_distance_counts_a_swap_as_one() -> None:
    assert edit_distance("conflcit", "conflict") == 1
    assert edit_distance("kitten", "sitting") == 3
    assert similarity("", "") == 1.0 and similarity("abcd", "abcx") == 0.75


@pytest.fixture(scope="module")
def embedder() -> Iterator[TextEmbedder]:
    with local_server("hashed-bow-cache-tests") as (_, embedder):
        yield embedder


def cache(embedder: TextEmbedder, **fields: object) -> SemanticCache:
    return SemanticCache(CacheConfig.model_validate({"enabled": True, **fields}), embedder)


def test_a_stored_answer_is_found_again_and_the_hit_says_how(embedder: TextEmbedder) -> None:
    c = cache(embedder)
    assert c.lookup("How much does Plus cost?", now=0).reason == "cache is empty"
    c.store("How much does Plus cost?", "$4 a month", ("c1",), now=0)
    hit = c.lookup("how much does plus cost", now=10)  # same words: cosine 1.0
    assert hit.hit and hit.cached is not None and hit.cached.answer == "$4 a month"
    assert hit.similarity == pytest.approx(1.0) and hit.threshold == 0.95 and hit.age_s == 10
    miss = c.lookup("Where are vault passphrases kept?", now=10)
    assert not miss.hit and miss.cached is None and miss.matched_query == "How much does Plus cost?"


def test_adaptive_mode_checks_numbers_and_names_in_the_recall_band(embedder: TextEmbedder) -> None:
    stored = "plan prices for notes storage and sync in 2023 explained"
    asked = "plan prices for notes storage and sync in 2024 explained"
    c = cache(embedder, precision_threshold=0.99, recall_threshold=0.5)
    c.store(stored, "old prices", now=0)
    lookup = c.lookup(asked, now=1)
    assert 0.5 <= (lookup.similarity or 0) < 0.99
    assert not lookup.hit and "2023" in lookup.reason and "2024" in lookup.reason
    recall = cache(embedder, mode="recall", precision_threshold=0.99, recall_threshold=0.5)
    recall.store(stored, "old prices", now=0)
    assert recall.lookup(asked, now=1).hit  # recall mode does not look at the key terms
    assert key_terms("Plus in 2024") == frozenset({"plus", "2024"})


def test_ttl_and_capacity(embedder: TextEmbedder) -> None:
    c = cache(embedder, ttl_s=300, capacity=2)
    c.store("first question about tags", "a", now=0)
    assert not c.lookup("first question about tags", now=301).hit  # expired
    c.store("one question", "1", now=400)
    c.store("two question", "2", now=401)
    c.lookup("one question", now=402)  # used: now the most recent
    c.store("three question", "3", now=403)
    assert len(c) == 2
    assert c.lookup("one question", now=404).hit and not c.lookup("two question", now=404).hit


def test_cache_for_shares_one_cache_per_namespace(embedder: TextEmbedder) -> None:
    cfg = CacheConfig(enabled=True)
    first = cache_for("ns", cfg, embedder)
    assert cache_for("ns", cfg, embedder) is first
    assert cache_for("ns", CacheConfig(enabled=True, ttl_s=5), embedder) is not first  # new settings
    with pytest.raises(ValueError, match="recall_threshold"):
        CacheConfig(precision_threshold=0.8, recall_threshold=0.9)
