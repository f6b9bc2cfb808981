"""The Evaluate page's abstention section: fit a preset's abstain bar on a QA file that has
answerable and unanswerable questions (eval.scoring.calibration), show the trade-off curve and
the out-of-fold estimate, and offer the preset override YAML."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from eval.data.evalsets import DATASETS_DIR, EvalSet
from eval.data.qa import load_qa_file
from eval.data.shapes import DatasetError
from eval.scoring.calibration import SIGNALS, Calibration, calibrate, calibration_items, override_yaml
from pages.ui.state import APP_PRESET
from rag.config import PresetError, available_presets, load_preset
from rag.paths import SAMPLES_DIR

CALIBRATION = "eval_abstain_calibration"  # session key: (preset, calibration, source)
BUILT = DATASETS_DIR / "build" / "debian_abstain"
ASKED_OF = "collection "  # "Asked of" names an existing collection: "collection NAME"


def curve_figure(result: Calibration) -> go.Figure:
    """Answer rate on answerable vs abstain rate on unanswerable, one point per bar."""
    points = [p for p in result.curve if p.threshold is not None]
    fig = go.Figure(go.Scatter(
        x=[p.abstain_rate for p in points], y=[p.answer_rate for p in points], mode="lines+markers",
        name="bars", text=[f"bar {p.threshold:.4f}" for p in points if p.threshold is not None],
        hovertemplate="%{text}<br>declines %{x:.2f} of unanswerable<br>answers %{y:.2f} of answerable"))
    chosen = result.chosen
    fig.add_trace(go.Scatter(x=[chosen.abstain_rate], y=[chosen.answer_rate], mode="markers",
                             marker={"size": 14, "symbol": "star"}, name=f"chosen {chosen.threshold}"))
    fig.add_hline(y=result.min_answer_rate, line_dash="dot", annotation_text="answer-rate floor")
    fig.update_layout(height=360, margin={"l": 10, "r": 10, "t": 40, "b": 10},
                      title=f"Trade-off of abstain.{SIGNALS[result.signal]}",
                      xaxis_title="abstain rate on unanswerable", yaxis_title="answer rate on answerable",
                      xaxis_range=[0, 1.02], yaxis_range=[0, 1.02])
    return fig


def estimate_frame(result: Calibration) -> pd.DataFrame:
    cv = result.cross_validated
    return pd.DataFrame([
        {"figure": key, "out of fold": cv[key]["value"], "95% CI low": cv[key]["ci95"][0],
         "95% CI high": cv[key]["ci95"][1]}
        for key in ("answer_rate", "abstain_recall", "abstain_precision", "abstain_f1")
    ])


def _defaults(evalset: EvalSet) -> tuple[str, str]:
    """(QA file, corpus): the built Debian set when there is one, else the selected QA set."""
    if evalset.collection:  # a set stored with a collection is asked of that collection
        return evalset.dataset.source, ASKED_OF + evalset.collection
    if (BUILT / "qa_calibrate.jsonl").is_file():
        return str(BUILT / "qa_calibrate.jsonl"), str(BUILT)
    source = Path(evalset.dataset.source)
    return (str(source), str(SAMPLES_DIR)) if source.is_file() else ("", str(SAMPLES_DIR))


def abstain_section(evalset: EvalSet) -> None:
    with st.expander("Abstention: calibrate when to decline"):
        st.caption("Every question runs once with the bar off; each candidate bar is then replayed "
                   "with the abstain stage's own rules. The chosen bar declines the most "
                   "unanswerable questions (rows with \"answerable\": false) while answering at "
                   "least the floor's share of answerable ones; its estimate is out of fold.")
        qa_default, corpus_default = _defaults(evalset)
        if st.session_state.get("abs_for") != evalset.name:  # another set: its own defaults
            st.session_state["abs_for"] = evalset.name
            for key in ("abs_qa", "abs_corpus"):
                st.session_state.pop(key, None)
        row = st.columns([2, 2])
        qa_path = row[0].text_input("QA file", qa_default, key="abs_qa")
        corpus = row[1].text_input("Asked of (documents or BEIR folder, or collection NAME)",
                                   corpus_default, key="abs_corpus")
        presets = available_presets()
        current = st.session_state.get(APP_PRESET)
        row = st.columns(4)
        preset = row[0].selectbox("Preset", presets, key="abs_preset",
                                  index=presets.index(current) if current in presets else 0)
        signal = row[1].selectbox("Signal", list(SIGNALS), key="abs_signal")
        floor = row[2].slider("Answer-rate floor", 0.5, 1.0, 0.85, 0.01, key="abs_floor")
        folds = row[3].number_input("Folds", 2, 10, 5, key="abs_folds")
        if st.button("Calibrate", key="abs_run", icon=":material/tune:") and qa_path:
            bar = st.progress(0.0, text="Answering…")
            try:
                config = load_preset(preset)
                moved = lambda done, of: bar.progress(done / of, f"{done}/{of}")  # noqa: E731
                qa = load_qa_file(qa_path)
                items = (calibration_items(qa, config, signal, progress=moved,
                                           collection=corpus.removeprefix(ASKED_OF))
                         if corpus.startswith(ASKED_OF) else
                         calibration_items(qa, config, signal, Path(corpus), moved))
                result = calibrate(items, config.abstain, signal, floor, int(folds), n_resamples=500)
            except (DatasetError, PresetError, ValueError, OSError) as exc:
                st.error(str(exc))
                return
            st.session_state[CALIBRATION] = (preset, result, qa_path)
        found = st.session_state.get(CALIBRATION)
        if found is None:
            return
        name, result, source = found
        chosen = result.chosen
        st.success(f"**{name}**: abstain.{SIGNALS[result.signal]} = {chosen.threshold} answers "
                   f"{chosen.answer_rate:.2f} of {result.n_answerable} answerable and declines "
                   f"{chosen.abstain_rate:.2f} of {result.n_unanswerable} unanswerable questions.")
        st.plotly_chart(curve_figure(result), key="abs_curve")
        st.dataframe(estimate_frame(result), width="stretch", hide_index=True)
        st.download_button("Preset override (YAML)", override_yaml(name, load_preset(name), result, source),
                           f"{name}_calibrated.yaml", "application/x-yaml", key="abs_download",
                           icon=":material/download:")
