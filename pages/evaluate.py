"""Evaluate: score presets (or one config field over values) on a test set with 95% bootstrap
CIs, compare two runs query by query, see whether retrieval or ranking limits a configuration,
and drill into any query's trace. All scoring is eval/; this page reads state and renders."""

from __future__ import annotations

import streamlit as st

from eval.diagnostics.ceiling_report import diagnose
from eval.runs.beir_index import MODES
from eval.runs.evalset_runner import honest_scores
from eval.scoring.compare import compare, is_relevant, query_deltas, ranked_queries, trace_query
from pages.ui import eval_figures as figures
from pages.ui import eval_session as ev
from pages.ui.abstain_eval import abstain_section
from pages.ui.answer_eval import answer_section
from pages.ui.entry import through_app
from pages.ui.eval_filled import filled_section
from pages.ui.eval_sets import choose_set
from pages.ui.eval_tables import deltas_frame, judged_frame, results_frame
from pages.ui.failure_eval import failure_section
from pages.ui.separation_view import separation_note
from pages.ui.state import APP_PRESET, session_cache
from pages.ui.tune_view import tune_section
from rag.config import PresetError, available_presets

through_app()  # a page opened by its address still runs inside app.py

DEFAULT_VALUES = "1,5,10,20,40,60,100,200"
MODES_SHOWN = ["Presets", "Sweep one field", "Tune (cross-validated)"]


def choose_mode(evalset: ev.EvalSet) -> str:
    return st.radio("Compare", MODES_SHOWN, horizontal=True, key="eval_mode",
                    help="Sweeps and tuning re-score one cached retrieval; span sets are judged "
                    "chunk by chunk against each configuration's own chunks")


def run_controls(evalset: ev.EvalSet, sweeping: bool) -> ev.EvalResults | None:
    presets = available_presets()
    preferred = [p for p in (st.session_state.get(APP_PRESET), "bm25", "hybrid") if p in presets]
    row = st.columns([1, 1, 2])
    if sweeping:
        base = row[0].selectbox("Preset", presets, key="eval_base",
                                index=presets.index(preferred[-1]) if preferred else 0)
        field = row[1].text_input("Field", "fusion.k", key="eval_field")
        values = row[2].text_input("Values (YAML, comma-separated)", DEFAULT_VALUES,
                                   key="eval_values")
    else:
        chosen = st.multiselect("Presets", presets, default=list(dict.fromkeys(preferred))[:2],
                                key="eval_presets")
    row = st.columns(3)
    n_all = len(evalset.dataset.queries)
    if st.session_state.get("eval_limit_of") != (evalset.name, n_all):  # another set: all of it
        st.session_state["eval_limit_of"] = (evalset.name, n_all)
        st.session_state.pop("eval_limit", None)
    limit = row[0].number_input("Queries", 1, n_all, min(n_all, 50), key="eval_limit")
    stages = row[1].selectbox("Stages", MODES, key="eval_stages", disabled=sweeping,
                              help="retrieval: retrieve, fuse, post-steps; full: every stage")
    if not row[2].button("Run", type="primary", key="eval_run", icon=":material/play_arrow:"):
        return None
    subset = evalset.limit(int(limit))
    try:
        if sweeping:
            return ev.run_field_sweep(subset, base, field, values)
        return ev.run_presets(subset, chosen, stages) if chosen else None
    except (PresetError, ValueError, KeyError) as exc:
        st.error(str(exc))
        return None


def wins_and_losses(results: ev.EvalResults, metric: str) -> None:
    labels = [r.label for r in results.runs]
    row = st.columns(2)
    a = row[0].selectbox("Run A", labels, index=0, key="eval_a")
    b = row[1].selectbox("Run B", labels, index=1, key="eval_b")
    run_a, run_b = (results.runs[labels.index(x)].run for x in (a, b))
    queries = results.evalset.dataset.queries
    deltas = query_deltas(run_a, run_b, metric, queries)
    st.plotly_chart(figures.wins_losses(deltas, a, b, metric), width="stretch")
    if deltas and a != b:
        test = compare(run_a, run_b, metric)
        st.caption(f"{b} − {a} on {metric}: {test.diff:+.4f} (95% CI {test.ci.low:+.4f} to "
                   f"{test.ci.high:+.4f}), paired randomization p = {test.p_value:.4f}; "
                   f"{b} better on {test.wins} queries, {a} better on {test.losses}, tied on "
                   f"{test.n - test.wins - test.losses} (of {test.n}).")
    st.dataframe(deltas_frame(deltas, a, b), width="stretch", hide_index=True)


def honest(results: ev.EvalResults) -> None:
    """Judged sets: how much of each run's top 10 nobody judged, and judged-only metrics."""
    cache = session_cache(st.session_state, "eval_honest", max_entries=16)
    figures = [cache.get_or_compute(r.label, lambda r=r: honest_scores(results.evalset, r))
               for r in results.runs]
    st.dataframe(judged_frame(figures), width="stretch", hide_index=True)
    for warning in filter(None, (f.warning() for f in figures)):
        st.warning(warning)


def ceilings(results: ev.EvalResults, labels: list[str]) -> None:
    target = st.selectbox("Configuration", labels, key="eval_diag_run")
    scored = results.runs[labels.index(target)]
    cache = session_cache(st.session_state, "eval_ceilings", max_entries=8)
    if target not in cache and not st.button("Diagnose ceilings", key="eval_diagnose"):
        return
    with st.spinner("Retrieving every query at depth 1000 (cached on disk)…"):
        report = cache.get_or_compute(target, lambda: diagnose(results.evalset, scored))
    verdict = report.verdict()
    (st.success if verdict.bottleneck == "none" else st.warning)(verdict.message)
    st.plotly_chart(figures.ceiling_chart(report), width="stretch")


def drill_down(results: ev.EvalResults, labels: list[str], metric: str) -> None:
    row = st.columns([1, 2])
    label = row[0].selectbox("Run", labels, key="eval_drill_run")
    scored = results.runs[labels.index(label)]
    queries = results.evalset.dataset.queries
    values = scored.run.scores[metric].values
    refused = {o.qid: f" · refused by the {o.blocked.split(':')[0]}" for o in scored.run.outcomes
               if o.blocked}
    qid = row[1].selectbox(
        "Query (worst first)", ranked_queries(scored.run, metric, queries), key="eval_drill_q",
        format_func=lambda q: f"{q} · {metric} {values.get(q, float('nan')):.3f}"
                              f"{refused.get(q, '')} · {queries[q]}")
    if not st.toggle("Open its trace", key="eval_drill_open"):
        return
    cache = session_cache(st.session_state, "eval_traces", max_entries=16)
    with st.spinner("Running the query through every stage…"):
        trace = cache.get_or_compute((label, qid),
                                     lambda: trace_query(results.evalset, scored.config, qid))
    ev.show_trace(trace, lambda chunk: is_relevant(results.evalset, qid, chunk), "eval_stage")


st.title("Evaluate")
st.caption("Score presets on a test set with 95% confidence intervals: pick a set and presets (a "
           "field to sweep, or Tune one with cross-validation), press Run, see where each query "
           "was won or lost.")
evalset = choose_set()
mode = choose_mode(evalset)
if mode == MODES_SHOWN[2]:
    tune_section(evalset)
    st.stop()
fresh = run_controls(evalset, mode == MODES_SHOWN[1])
chosen_presets = ([st.session_state["eval_base"]] if st.session_state.get("eval_mode") ==
                  "Sweep one field" else list(st.session_state.get("eval_presets") or []))
answer_section(evalset, chosen_presets)
abstain_section(evalset)
if fresh is not None:  # new results: earlier ceilings and traces belong to the old ones
    st.session_state[ev.RESULTS] = fresh
    for stale in ("eval_ceilings", "eval_traces", "eval_honest", "eval_filled"):
        st.session_state.pop(stale, None)
results: ev.EvalResults | None = st.session_state.get(ev.RESULTS)
if results is None:
    st.info("Pick a test set and presets (or a field to sweep), then press Run.")
    st.stop()

labels = [r.label for r in results.runs]
metric = st.selectbox("Metric", list(results.runs[0].run.scores), key="eval_metric")
st.subheader(f"Results on {results.evalset.name}")
st.dataframe(results_frame(results.runs), width="stretch", hide_index=True)
if results.sweep:
    sweep = results.sweep.result
    st.plotly_chart(figures.sweep_curves(sweep.points, sweep.axes[0].key, metric), width="stretch")
else:
    st.plotly_chart(figures.metric_intervals(results.runs, metric), width="stretch")
separation_note(results.runs, metric)  # can this set rank them at all? (issue 36)
if results.evalset.judged:
    st.subheader("Judged passages only: unjudged share, bpref, condensed nDCG")
    honest(results)
    filled_section(results)
if len(results.runs) >= 2:
    st.subheader("Wins and losses per query")
    wins_and_losses(results, metric)
st.subheader("Ceilings: fix retrieval or ranking?")
ceilings(results, labels)
st.subheader("Why each query failed")
failure_section(results, labels)
st.subheader("Drill down to a query's trace")
drill_down(results, labels, metric)
