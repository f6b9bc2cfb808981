"""The Evaluate page's Tune mode: pick a preset and a space, run the cross-validated tune with
progress, read the out-of-fold result beside the in-sample one, the per-fold choices and the
paired tests, and save or download the tuned preset. All tuning is eval.tune."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from eval.data.evalsets import EvalSet
from eval.runs.identity import evalset_identity
from eval.runs.record import store_tune
from eval.tune.protocol import run_tune
from eval.tune.report import tune_json, tuned_preset
from eval.tune.space import SpaceError, load_space, shipped_spaces
from pages.ui import eval_session as ev
from rag.config import (
    PipelineConfig,
    PresetError,
    available_presets,
    load_preset,
    preset_yaml,
    save_user_preset,
)

TUNED = "eval_tune_result"  # session key: (report, tuned preset config)


def _run(evalset: EvalSet, preset: str, space_name: str, folds: int, trials: int) -> None:
    base = load_preset(preset)
    space = load_space(shipped_spaces()[space_name], base)
    bar = st.progress(0.0, text="Searching every query once (cached on disk)…")
    stages = folds + 1

    def moved(stage: str, done: int, planned: int, best: float) -> None:
        index = folds if stage == "all" else int(stage.split()[1].split("/")[0]) - 1
        bar.progress(min((index + done / planned) / stages, 1.0),
                     text=f"{stage}: trial {done}/{planned}, best so far {best:.4f}")

    result = run_tune(evalset.dataset, base, space, folds, trials, on_trial=moved,
                      progress=False, note=st.caption,
                      chunk_qrels=evalset.qrels_for if evalset.unit == "chunk" else None)
    report = tune_json(result, {"name": evalset.name}, 1000, 0)
    bar.progress(1.0, text=f"Tuned in {result.total_s:.1f} s ({result.tails} tails re-run)")
    st.session_state[TUNED] = (report, tuned_preset(result, report))
    ev.keep(lambda: [store_tune(result, report, evalset.dataset, evalset_identity(evalset),
                                source="app", user=ev.app_user())])


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.4f}"


def folds_frame(report: Mapping[str, Any]) -> pd.DataFrame:
    rows = [{"fold": f["fold"], "held-out queries": f["n_test"], "train score": f["train_score"],
             "held-out score": f["test_score"], **{k: str(v) for k, v in f["chosen"].items()}}
            for f in report["folds"]]
    return pd.DataFrame(rows)


def tests_frame(report: Mapping[str, Any]) -> pd.DataFrame:
    rows = [{"against": name + (" (best single)" if name == report["best_single_retriever"]
                                else ""),
             "baseline": t["baseline"], "tuned, out of fold": t["tuned_oof"], "diff": t["diff"],
             "diff 95% CI": f"[{t['ci95'][0]:+.4f}, {t['ci95'][1]:+.4f}]",
             "p": t["p_value"], "wins": t["wins"], "losses": t["losses"]}
            for name, t in report["paired_tests"].items()]
    return pd.DataFrame(rows)


def show_report(report: Mapping[str, Any], config: PipelineConfig) -> None:
    name, yaml_text = config.name, preset_yaml(config)
    metric = report["objective"]
    oof, ins = report["out_of_fold"], report["in_sample"]
    row = st.columns(3)
    row[0].metric(f"Out-of-fold {metric}", _fmt(oof["metrics"][metric]),
                  help="each query scored by a configuration chosen without it")
    row[1].metric(f"In-sample best {metric}", _fmt(ins["metrics"][metric]),
                  help="what a sweep that picks and reports on the same queries would print")
    row[2].metric("Optimism (in-sample − out-of-fold)", _fmt(report["optimism"]))
    lo, hi = oof["ci95"][metric]
    st.caption(f"Out-of-fold {metric} {_fmt(oof['metrics'][metric])}, 95% CI [{_fmt(lo)}, "
               f"{_fmt(hi)}] over {oof['n_queries']} queries; {report['protocol']['folds']} "
               f"folds × {report['protocol']['trials']} trials ({report['protocol']['search']}).")
    st.markdown("**Chosen per fold** (on the other folds only)")
    st.dataframe(folds_frame(report), width="stretch", hide_index=True)
    st.caption(f"The most common configuration was chosen by "
               f"{report['stability']['modal_point_share']:.0%} of folds "
               f"({report['stability']['distinct_points']} distinct).")
    st.markdown("**Paired tests of the out-of-fold scores**")
    st.dataframe(tests_frame(report), width="stretch", hide_index=True)
    st.markdown(f"**Tuned preset** `{name}` (chosen on all queries; expect the out-of-fold score)")
    with st.expander("Preset YAML"):
        st.code(yaml_text, language="yaml")
    row = st.columns(2)
    row[0].download_button("Download preset YAML", yaml_text, file_name=f"{name}.yaml",
                           key="eval_tune_download", icon=":material/download:")
    if row[1].button("Save as preset", key="eval_tune_save", icon=":material/save:",
                     help="every page's preset list shows it"):
        try:
            path = save_user_preset(config)
        except PresetError as exc:
            st.error(str(exc))
        else:
            st.success(f"Saved {path}; pick {name!r} in any page's preset list.")


def tune_section(evalset: EvalSet) -> None:
    presets, spaces = available_presets(), list(shipped_spaces())
    row = st.columns(4)
    preset = row[0].selectbox("Preset", presets, key="eval_tune_preset",
                              index=presets.index("hybrid") if "hybrid" in presets else 0)
    space = row[1].selectbox("Space", spaces, key="eval_tune_space",
                             index=spaces.index("fusion") if "fusion" in spaces else 0)
    folds = row[2].number_input("Folds", 2, 10, 5, key="eval_tune_folds")
    trials = row[3].number_input("Trials per search", 1, 200, 20, key="eval_tune_trials")
    st.caption("Settings searched: " + ", ".join(
        f"`{k}`" for k in load_space(shipped_spaces()[space]).as_json()["settings"]))
    if st.button("Tune", type="primary", key="eval_tune_run", icon=":material/tune:"):
        try:
            _run(evalset, preset, space, int(folds), int(trials))
        except (PresetError, SpaceError, ValueError) as exc:
            st.error(str(exc))
    if TUNED in st.session_state:
        show_report(*st.session_state[TUNED])
