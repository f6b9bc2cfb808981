"""RAG_WORKBENCH_PRESET_OVERRIDES: dotted-field overrides every loaded preset gets (tests use it
to index with the hashing embedder instead of MiniLM)."""

from __future__ import annotations

import pytest

from rag.config import PRESET_OVERRIDES_ENV, PresetError, env_overrides, load_preset


def test_unset_means_the_preset_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PRESET_OVERRIDES_ENV, raising=False)
    assert env_overrides() == {}
    assert load_preset("hybrid").embedding.backend == "onnx"


def test_every_preset_gets_the_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PRESET_OVERRIDES_ENV, raising=False)
    written = {name: load_preset(name) for name in ("hybrid", "dense", "intellidocs")}
    monkeypatch.setenv(PRESET_OVERRIDES_ENV, "{embedding.backend: hashing, fusion.k: 30}")
    for name, as_written in written.items():
        config = load_preset(name)
        assert config.embedding.backend == "hashing" and config.fusion.k == 30
        assert config.name == name
        changed = {"embedding": {"backend": "hashing"}, "fusion": {"k": 30}}
        assert config == as_written.model_copy(update={
            section: getattr(as_written, section).model_copy(update=fields)
            for section, fields in changed.items()
        })  # nothing else moved


@pytest.mark.parametrize(("value", "message"), [
    ("[embedding.backend]", "mapping"),
    ("{embedding.backend: [", "not valid YAML"),
    ("{embedding.nope: 1}", "embedding.nope"),
    ("{nope.backend: 1}", "unknown config field 'nope.backend'"),
    ("{embedding.backend: word2vec}", "embedding.backend"),
])
def test_bad_overrides_are_named(monkeypatch: pytest.MonkeyPatch, value: str, message: str) -> None:
    monkeypatch.setenv(PRESET_OVERRIDES_ENV, value)
    with pytest.raises(PresetError, match=message):
        load_preset("hybrid")
