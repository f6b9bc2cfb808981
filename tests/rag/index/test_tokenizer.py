"""The shared BM25 tokenizer: pattern, lowercase, stopwords and stemming each do their job."""

from __future__ import annotations

import sys

import pytest

from rag.index.tokenizer import StemmingUnavailableError, Tokenizer, english_stopwords
from rag.settings.index import TokenizerConfig


def test_default_lowercases_and_drops_english_stopwords_and_single_letters() -> None:
    tokens = Tokenizer(TokenizerConfig())("The APT tool and a Debian package")
    assert tokens == ["apt", "tool", "debian", "package"]


def test_english_stopwords_are_the_list_bm25s_ships() -> None:
    from bm25s.stopwords import STOPWORDS_EN

    assert english_stopwords() == frozenset(STOPWORDS_EN)


def test_switching_off_lowercase_and_stopwords_keeps_them() -> None:
    cfg = TokenizerConfig(lowercase=False, stopwords="none")
    assert Tokenizer(cfg)("The APT tool") == ["The", "APT", "tool"]


def test_stemming_maps_inflections_to_one_term() -> None:
    stem = Tokenizer(TokenizerConfig(stemming=True))
    assert stem("running runs") == stem("run run") == ["run", "run"]
    assert Tokenizer(TokenizerConfig())("running runs") == ["running", "runs"]


def test_custom_pattern_decides_what_a_token_is() -> None:
    cfg = TokenizerConfig(pattern=r"[a-z0-9.+-]+", stopwords="none")
    assert Tokenizer(cfg)("python3.11 and g++") == ["python3.11", "and", "g++"]


def test_stemming_without_pystemmer_names_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "Stemmer", None)  # import Stemmer now raises ImportError
    with pytest.raises(StemmingUnavailableError, match=r"index\.tokenizer\.stemming"):
        Tokenizer(TokenizerConfig(stemming=True))
