"""The ONNX graph a collection embeds with is the one it records: a new collection gets the graph
this CPU's check allows (`auto`), an existing one keeps its recorded graph and says so once,
and a collection built before the choice existed keeps its settings hash. The CPU check's
verdict is injected, so both outcomes run on every processor."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from index_helpers import passage_docs, unique_name

from rag.config import PipelineConfig, load_preset
from rag.embed import cpu_check, get_embedder
from rag.embed.cpu_check import CpuIdentity, Probe, decide
from rag.embed.onnx_build import build_key
from rag.index import Collection, delete_collection, open_collection
from rag.index.derived import index_for, needs_sync
from rag.index.embedding_pin import pinned
from rag.index.manifest import index_settings, settings_hash

CPU = CpuIdentity("test CPU", ("avx2",))
ACCEPTS = Probe(0.9993, 0.1, 0.25, True)
REJECTS = Probe(0.996, 0.25, 0.25, False)


def auto() -> PipelineConfig:
    config = load_preset("hybrid")
    assert config.embedding.backend == "onnx" and config.embedding.onnx_variant == "auto"
    return config


def built_with(variant: str | None) -> dict[str, object]:
    config = auto()
    settings = index_settings(config.model_copy(update={"embedding": config.embedding.model_copy(
        update={"onnx_variant": variant or "int8-weights"})}))
    return settings


@pytest.fixture
def verdict(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Probe]]:
    """The CPU check answers with the probe in the list (ACCEPTS unless a test says otherwise)."""
    probes = [ACCEPTS]
    monkeypatch.setattr(cpu_check, "checked", lambda v: decide(v, probes[0], CPU))
    yield probes


def test_auto_on_a_new_collection_is_the_graph_the_check_allows(verdict: list[Probe]) -> None:
    assert pinned(auto(), {}).embedding.onnx_variant == "int8-smooth-rows"
    verdict[0] = REJECTS
    assert pinned(auto(), {}).embedding.onnx_variant == "fp32"


def test_an_existing_collection_keeps_its_graph_and_its_hash(
    verdict: list[Probe], tmp_path: Path
) -> None:
    # None: built before the choice (legacy); int8-smooth-u8: built where int8-smooth was rejected
    for recorded in ("fp32", "int8-smooth", "int8-smooth-u8", "int8-smooth-rows", None):
        settings = built_with(recorded)
        kept = pinned(auto(), settings, name="docs", directory=tmp_path / str(recorded))
        assert settings_hash(index_settings(kept)) == settings_hash(settings)
        assert kept.embedding.onnx_variant == (recorded or "int8-weights")
    verdict[0] = REJECTS  # a CPU that rejects int8-smooth still reads int8-smooth vectors with it
    assert pinned(auto(), built_with("int8-smooth")).embedding.onnx_variant == "int8-smooth"
    assert pinned(auto(), built_with("int8-smooth-u8")).embedding.onnx_variant == "int8-smooth-u8"


def test_a_new_collection_keeping_the_graph_it_chose_says_nothing(
    verdict: list[Probe], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The first ingest chooses and records the graph; the pins after it (same run or a later
    one) keep it, which is no news. A CPU whose check chose another graph would still hear it."""
    for probe, folder in ((ACCEPTS, tmp_path / "accepts"), (REJECTS, tmp_path / "rejects")):
        verdict[0] = probe
        folder.mkdir()
        with caplog.at_level(logging.WARNING):
            chosen = pinned(auto(), {}, name=folder.name, directory=folder).embedding.onnx_variant
            for _ in range(2):
                kept = pinned(auto(), built_with(chosen), name=folder.name, directory=folder)
                assert kept.embedding.onnx_variant == chosen
        assert not [r for r in caplog.records if "keeps the" in r.getMessage()]
    verdict[0] = ACCEPTS  # the fp32 collection seen by a process whose CPU now allows int8
    with caplog.at_level(logging.WARNING):
        pinned(auto(), built_with("fp32"), name="elsewhere", directory=tmp_path / "accepts")
    assert [r.getMessage() for r in caplog.records if "keeps the fp32" in r.getMessage()]


def test_keeping_an_older_graph_is_said_once(
    verdict: list[Probe], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        for _ in range(3):
            pinned(auto(), built_with("fp32"), name=tmp_path.name, directory=tmp_path)
    said = [r.getMessage() for r in caplog.records if "keeps the fp32 graph" in r.getMessage()]
    assert said == [f"collection {tmp_path.name!r}: the collection keeps the fp32 graph it was "
                    f"built with"]


def test_a_graph_asked_for_by_name_on_a_cpu_that_rejects_it_is_fp32_and_says_why(
    verdict: list[Probe],
) -> None:
    verdict[0] = REJECTS
    config = auto()
    config.embedding.onnx_variant = "int8-smooth"
    assert pinned(config, {}).embedding.onnx_variant == "fp32"
    assert pinned(config, built_with("int8-smooth")).embedding.onnx_variant == "int8-smooth"


@pytest.fixture
def fresh() -> Iterator[Collection]:
    collection = open_collection(unique_name("pin"), create=True)
    yield collection
    delete_collection(collection.name)


@pytest.mark.slow  # loads the ONNX MiniLM
@pytest.mark.parametrize("probe", [ACCEPTS, REJECTS], ids=["accepted", "rejected"])
def test_the_recorded_graph_is_the_one_that_embedded(
    probe: Probe, verdict: list[Probe], fresh: Collection
) -> None:
    verdict[0] = probe
    fresh.add_documents(passage_docs()[:2], auto(), progress=False)
    recorded = fresh.manifest.settings["embedding"]["onnx_variant"]
    assert recorded == ("int8-smooth-rows" if probe is ACCEPTS else "fp32")
    used = get_embedder(fresh.pinned(auto()).embedding)
    assert build_key(recorded) in used.model_id
    # the same config reads the collection's own index on any CPU verdict afterwards
    verdict[0] = REJECTS if probe is ACCEPTS else ACCEPTS
    assert not needs_sync(fresh, auto()) and index_for(fresh, auto()) is fresh
