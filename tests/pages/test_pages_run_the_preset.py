"""Presets are the source of truth on every page: pick a seed preset, change nothing, run — the
config the page ran (its trace's) is the preset's, chunking and embedding included. The sample
collection is built once with hybrid's settings; a preset that chunks or embeds another way reads
an index derived from the same documents, and its trace names that index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hashing_presets import use_hashing_presets
from streamlit.testing.v1 import AppTest

from rag.chunking import strategy_settings
from rag.config import load_preset
from rag.documents import ingest_paths
from rag.index import index_settings, open_collection
from rag.paths import SAMPLES_DIR
from rag.rerank.offline import offline_default
from rag.systems import SYSTEMS

PAGES = Path(__file__).resolve().parents[2] / "pages"
COLLECTION = "samples"
INDEX_SIDE = ("documents", "chunking", "embedding", "index")


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The sample collection, built once with the hybrid preset's settings (hashing embedder)."""
    with pytest.MonkeyPatch.context() as patch:
        use_hashing_presets(patch, tmp_path_factory.mktemp("preset-truth"))
        documents = ingest_paths(sorted(SAMPLES_DIR.iterdir())).documents
        collection = open_collection(COLLECTION, create=True)
        collection.add_documents(documents, load_preset("hybrid"), progress=False)
        assert set(collection.manifest.settings) <= {*INDEX_SIDE}
        yield


def _assert_runs_the_preset(ran: dict[str, Any], preset: str, page: str = "") -> None:
    config = load_preset(preset)
    if page == "rerank.py":  # the one exception: it starts on a reranker that runs offline
        config = config.model_copy(update={"rerank": offline_default(config.rerank)[0]})
    expected = config.model_dump(mode="json")
    assert ran == {**expected, "index": {**expected["index"], "collection": COLLECTION}}


def _assert_reads_its_own_index(trace_collection: str, preset: str) -> None:
    """hybrid's settings read the collection's own index; other chunking etc., a derived one."""
    own = index_settings(load_preset(preset)) == index_settings(load_preset("hybrid"))
    assert trace_collection == COLLECTION if own else trace_collection.startswith(
        f"{COLLECTION}.ix-")


def _open(page: str, preset: str) -> AppTest:
    at = AppTest.from_file(str(PAGES / page), default_timeout=180)
    at.session_state["app_preset"] = preset
    at.session_state["app_collection"] = COLLECTION
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("preset", SYSTEMS)
@pytest.mark.parametrize(("page", "trace_key"), [
    ("retrieval.py", "ret_trace"), ("rerank.py", "rr_trace"), ("query_lab.py", "ql_trace"),
])
def test_the_page_runs_the_preset(samples: None, page: str, trace_key: str, preset: str) -> None:
    at = _open(page, preset)
    trace = at.session_state[trace_key]
    _assert_runs_the_preset(dict(trace.config), preset, page)
    if page != "query_lab.py":  # understanding alone reads no index unless it spell-checks
        _assert_reads_its_own_index(trace.collection, preset)


@pytest.mark.parametrize("preset", SYSTEMS)
def test_the_answer_page_runs_the_preset(samples: None, preset: str) -> None:
    at = _open("answer.py", preset)
    at.chat_input(key="ans_input").set_value("How long do deleted notes stay in the trash?").run()
    assert not at.exception
    trace = at.session_state["ans_trace"]
    _assert_runs_the_preset(dict(trace.config), preset)
    _assert_reads_its_own_index(trace.collection, preset)


@pytest.mark.parametrize("preset", SYSTEMS)
def test_chunk_lab_exports_the_presets_chunking(samples: None, preset: str) -> None:
    at = _open("chunk_lab.py", preset)
    exported = [c.value for c in at.code if c.value.lstrip().startswith("name:")]
    assert exported, "Chunk Lab shows the chunking as preset YAML"
    chunking = yaml.safe_load(exported[0])["chunking"]
    own = load_preset(preset).chunking
    assert chunking["strategy"] == own.strategy  # the same settings, defaults spelled out
    assert strategy_settings(own.strategy, chunking["params"]) == strategy_settings(
        own.strategy, dict(own.params))


def test_the_systems_page_runs_every_seed_as_its_preset(samples: None) -> None:
    at = _open("systems.py", "hybrid")
    at.multiselect(key="sys_presets").set_value(list(SYSTEMS)).run()
    at.button(key="sys_run").click().run()
    assert not at.exception
    runs = at.session_state["sys_result"].runs
    assert [r.preset for r in runs] == list(SYSTEMS)
    for run in runs:  # each system reads an index built its own way from the same documents
        _assert_runs_the_preset(dict(run.trace.config), run.preset)
        _assert_reads_its_own_index(run.trace.collection, run.preset)


@pytest.mark.parametrize("preset", SYSTEMS)
def test_the_evaluate_page_scores_the_preset(samples: None, preset: str) -> None:
    """Scoring differs from the preset in two documented ways only: the collection is the test
    set's, and top_k is the retrieval depth (deep metrics such as recall@100 see the whole
    ranking the preset fused)."""
    at = _open("evaluate.py", preset)
    at.multiselect(key="eval_presets").set_value([preset])
    at.number_input(key="eval_limit").set_value(3)
    at.button(key="eval_run").click().run()
    assert not at.exception
    (scored,) = at.session_state["eval_results"].runs
    ran = scored.config.model_dump(mode="json")
    expected = load_preset(preset).model_dump(mode="json")
    for config in (ran, expected):
        config["index"]["collection"] = None
        config["retrieval"]["top_k"] = config["retrieval"]["depth"]
    assert ran == expected
