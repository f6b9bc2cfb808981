"""A preset that reads a derived index answers from its collection's kept text on every path.

Axiom's chunking differs from the collection's (built with hybrid), so Axiom reads an index
derived from the collection's documents. Every caller resolves that once (rag.index.derived.
resolve -> IndexRef) and hands the runner the ref, so the extractive answerer still completes
whole sentences from the collection's kept text: the CLI, the Answer page, the Systems page and
eval answer exactly as a run that opens the collection itself. A bare derived index (no
collection) falls back to block-only sentences, and the trace says so.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hashing_presets import use_hashing_presets
from own_collection import build_collection, sample_rows
from streamlit.testing.v1 import AppTest

from eval.data.qa import load_qa_file
from eval.runs.own_corpus import collection_traces
from rag.cli import main as rag_main
from rag.config import PipelineConfig, load_preset, with_overrides
from rag.index import open_collection
from rag.index.derived import index_for, resolve
from rag.pipeline import run_query
from rag.trace import Trace

PAGES = Path(__file__).resolve().parents[2] / "pages"
PRESET = "axiom"
# a question whose best block starts mid-sentence under Axiom's children (400/50 chars): its
# answer differs when the answerer cannot read the document's kept text
QUESTION_ID = "qa05"
BLOCK_ONLY = "answer quoted from the context blocks only"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    root = tmp_path_factory.mktemp("derived-kept-text")
    with pytest.MonkeyPatch.context() as patch:
        use_hashing_presets(patch, root)
        yield root, build_collection(root / "files")


@pytest.fixture
def env(built: tuple[Path, str], monkeypatch: pytest.MonkeyPatch) -> str:
    """The collection's name, with its data folder and the hashing presets in place."""
    use_hashing_presets(monkeypatch, built[0])
    return built[1]


def question() -> str:
    rows = [r for r in sample_rows(n=100) if r["id"] == QUESTION_ID]
    assert rows, f"{QUESTION_ID} is not among the bundled QA rows over the collection's files"
    return str(rows[0]["question"])


def config(name: str) -> PipelineConfig:
    return with_overrides(load_preset(PRESET), {"index.collection": name})


def opened_itself(trace: Trace) -> Trace:
    """The same question and config, the run opening the collection the config names itself."""
    return run_query(trace.query, PipelineConfig.model_validate(trace.config))


def assert_answers_from_kept_text(trace: Trace, name: str) -> None:
    assert trace.answer, trace.warnings
    assert not any(BLOCK_ONLY in w for w in trace.warnings), trace.warnings
    assert trace.answer == opened_itself(trace).answer
    assert trace.collection != name  # it did read the derived index


def test_the_preset_reads_a_derived_index_and_a_bare_one_loses_the_text_visibly(env: str) -> None:
    cfg = config(env)
    ref = resolve(open_collection(env), cfg)
    assert ref.derived and ref.collection is not None and ref.name != env
    own = run_query(question(), cfg)
    bare = run_query(question(), cfg, index_for(open_collection(env), cfg))
    assert own.answer != bare.answer  # the kept text matters for this question
    said = [w for w in bare.warnings if BLOCK_ONLY in w]
    assert said and "without its collection" in said[0]  # never silent
    assert run_query(question(), cfg, ref).answer == own.answer


def test_cli(env: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert rag_main(["query", question(), "--collection", env, "--preset", PRESET, "--json"]) == 0
    trace = Trace.from_json(capsys.readouterr().out)
    assert_answers_from_kept_text(trace, env)


def test_answer_page(env: str) -> None:
    at = AppTest.from_file(str(PAGES / "answer.py"), default_timeout=300)
    at.session_state["app_collection"] = env
    at.session_state["app_preset"] = PRESET
    at.run()
    at.chat_input(key="ans_input").set_value(question()).run()
    assert not at.exception, at.exception
    trace = at.session_state["ans_trace"]
    assert trace.preset == PRESET
    assert_answers_from_kept_text(trace, env)


def test_systems_page(env: str) -> None:
    at = AppTest.from_file(str(PAGES / "systems.py"), default_timeout=300)
    at.session_state["app_collection"] = env
    at.run()
    at.multiselect(key="sys_presets").set_value([PRESET, "intellidocs"]).run()
    at.text_input(key="sys_query").set_value(question()).run()
    at.button(key="sys_run").click().run()
    assert not at.exception, at.exception
    run = next(r for r in at.session_state["sys_result"].runs if r.preset == PRESET)
    assert_answers_from_kept_text(run.trace, env)


def test_eval_over_the_collection(env: str, tmp_path: Path) -> None:
    rows = [r for r in sample_rows(n=100) if r["id"] == QUESTION_ID]
    path = tmp_path / "qa.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    [(_, trace)] = list(collection_traces(load_qa_file(path), config(env), open_collection(env)))
    assert_answers_from_kept_text(trace, env)
