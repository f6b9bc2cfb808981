"""What the Evaluate page needs around eval/: cached test sets, runs with a progress bar, the
session's results, and the trace view of a drilled-into query."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from eval.data.evalsets import EvalSet, load_eval_set
from eval.runs.beir_index import Mode
from eval.runs.evalset_runner import ScoredRun, SweepRun, score_config, sweep_grid
from eval.runs.identity import evalset_identity
from eval.runs.record import store_scored, store_sweep
from eval.runs.sweep import parse_grid
from eval.runs.trace_tap import keeping_traces
from pages.ui.eval_tables import candidates_frame, stage_candidates, stage_frame
from pages.ui.state import APP_USER
from rag.chunking import Chunk
from rag.config import load_preset
from rag.trace import Trace

RESULTS = "eval_results"  # session key of the last EvalResults


@dataclass(frozen=True)
class EvalResults:
    """The last run of the page: the (query-limited) set, the scored runs, the sweep if any."""

    evalset: EvalSet
    runs: tuple[ScoredRun, ...]
    sweep: SweepRun | None = None


def _stamp(path: Path) -> tuple[tuple[str, int], ...]:
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    return tuple((str(p), p.stat().st_mtime_ns) for p in files)


@st.cache_resource(max_entries=4, show_spinner="Loading the test set…")
def _load(source: str, stamp: tuple[tuple[str, int], ...]) -> EvalSet:
    return load_eval_set(source)


def load_set(source: str) -> EvalSet:
    """The set at `source` (BEIR folder or QA file), loaded again only when its files change."""
    path = Path(source)
    if not path.exists():
        raise FileNotFoundError(f"{source}: no such folder or file")
    return _load(str(path.resolve()), _stamp(path))


def run_presets(evalset: EvalSet, presets: Sequence[str], mode: Mode) -> EvalResults:
    """Score each preset with one progress bar over every (preset, query)."""
    total = len(evalset.dataset.queries) * len(presets)
    bar = st.progress(0.0, text="Indexing the set (the first run loads the embedding model)…")
    runs = []
    for i, name in enumerate(presets):
        offset = i * len(evalset.dataset.queries)

        def moved(done: int, of: int, label: str, offset: int = offset) -> None:
            bar.progress((offset + done) / total, text=f"{label}: query {done}/{of}")

        with keeping_traces() as traces:
            scored = score_config(evalset, load_preset(name), mode=mode, progress=moved)
        runs.append(scored)
        keep(lambda scored=scored, traces=traces: [store_scored(
            evalset, scored, mode=mode, user=app_user(), traces=traces)])
    bar.progress(1.0, text=f"Scored {len(presets)} preset(s) on {total // len(presets)} queries")
    return EvalResults(evalset, tuple(runs))


def app_user() -> str:
    return str(st.session_state.get(APP_USER) or "")


def keep(store: Callable[[], Sequence[Path]]) -> None:
    """Store a run for the Runs page; a full disk costs the stored copy, never the results."""
    try:
        paths = store()
    except OSError as exc:
        st.warning(f"The run was not stored ({exc}); its results are below.")
        return
    if paths:
        st.caption(f"Stored as {', '.join(p.name for p in paths)} — compare it on the Runs page.")


def run_field_sweep(evalset: EvalSet, preset: str, field: str, values: str) -> EvalResults:
    """One config field over comma-separated YAML values; lists are retrieved once and cached."""
    axes = parse_grid([f"{field}={values}"])
    n = len(axes[0].values)
    bar = st.progress(0.0, text=f"Retrieving once, then re-scoring {n} values…")
    base = load_preset(preset)
    sweep = sweep_grid(evalset, base, axes)
    keep(lambda: store_sweep(sweep.result, base, evalset.dataset, evalset_identity(evalset),
                             metrics=list(sweep.runs[0].run.scores), source="app",
                             user=app_user()))
    bar.progress(1.0, text=f"Retrieval {sweep.result.retrieval_s:.1f} s, re-scoring {n} values "
                           f"{sweep.result.rescoring_s:.1f} s")
    return EvalResults(evalset, sweep.runs, sweep)


def show_trace(trace: Trace, relevant: Callable[[Chunk], bool], key: str) -> None:
    """Every stage of the trace, then the candidates of the stage the user picks."""
    st.dataframe(stage_frame(trace), width="stretch", hide_index=True)
    with_candidates = [r.stage for r in trace.records if stage_candidates(trace, r.stage)]
    if not with_candidates:
        st.info("No stage returned candidates.")
        return
    stage = st.selectbox("Candidates after stage", with_candidates,
                         index=len(with_candidates) - 1, key=key)
    frame = candidates_frame(stage_candidates(trace, stage), relevant)
    st.caption(f"{int(frame['relevant'].sum())} of {len(frame)} candidates are relevant")
    st.dataframe(frame, width="stretch", hide_index=True,
                 column_config={"score": st.column_config.NumberColumn(format="%.4f")})
