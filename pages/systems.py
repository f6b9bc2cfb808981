"""Systems: one query through 2–5 of the seed systems side by side (answer, sources,
groundedness, stage timeline, what each did differently), and the feature matrix generated
from their presets. Each preset reads the index its own chunking and embedding need, derived
from the session collection's documents on first use."""

from __future__ import annotations

import streamlit as st

from pages.ui import resources
from pages.ui.answer_examples import opening_question
from pages.ui.configs import page_config
from pages.ui.entry import through_app
from pages.ui.systems_view import (
    llm_frame,
    llm_line,
    matrix_frame,
    sources_frame,
    summary_frame,
    timeline_figure,
    timeline_frame,
)
from rag.config import PipelineConfig, available_presets, load_preset
from rag.index import IndexRef
from rag.query import LEVEL_ORDER, LEVELS, apply_level
from rag.systems import (
    BASELINES,
    SYSTEMS,
    Comparison,
    FeatureMatrix,
    SystemRun,
    compare,
    features_matrix,
)

through_app()  # a page opened by its address still runs inside app.py

DEFAULT_QUERY = "How does LumenSync resolve conflicts?"
AS_PRESET = "preset"  # the level slider's first stop: adaptive as its preset configures it


@st.cache_resource(max_entries=1, show_spinner=False)
def _matrix() -> FeatureMatrix:
    return features_matrix()


def chosen_configs() -> list[PipelineConfig]:
    """The presets picked in the page's widgets, with adaptive's intelligence level applied when
    one is picked (left at "preset", every system runs exactly its preset)."""
    names = [n for n in (*SYSTEMS, *BASELINES) if n in available_presets()]
    picked = st.multiselect("Systems (2–5)", names, default=["axiom", "echomind", "adaptive"],
                            max_selections=5, key="sys_presets")
    level = st.select_slider("Adaptive's intelligence level", [AS_PRESET, *LEVEL_ORDER],
                             AS_PRESET, key="sys_level",
                             help=" · ".join(f"{n}: {LEVELS.get(n).summary}" for n in LEVEL_ORDER))
    configs = [load_preset(n) for n in picked]
    if level == AS_PRESET:
        return configs
    return [apply_level(c, level) if c.name == "adaptive" else c for c in configs]


def show_run(run: SystemRun, differences: tuple[str, ...]) -> None:
    st.subheader(run.preset)
    grounded = "–" if run.grounded_share is None else f"{run.grounded_share:.2f}"
    st.caption(f"grounded share {grounded} · {run.trace.total_ms:,.0f} ms")
    st.markdown(run.answer or "_no answer_")
    st.caption(llm_line(run))
    st.markdown("**What it did differently**")
    st.markdown("\n".join(f"- {fact}" for fact in differences) or "_nothing the others did not_")
    with st.expander(f"Sources ({len(run.sources)})"):
        st.dataframe(sources_frame(run), width="stretch", hide_index=True)
    for warning in run.trace.warnings[:3]:
        st.caption(f"⚠ {warning}")


def show_comparison(result: Comparison) -> None:
    st.dataframe(summary_frame(result.runs), width="stretch", hide_index=True)
    columns = st.columns(len(result.runs))
    for column, run in zip(columns, result.runs, strict=True):
        with column:
            show_run(run, result.differences[run.preset])
    st.plotly_chart(timeline_figure(result.runs), width="stretch")
    with st.expander("Stage timeline as a table"):
        st.dataframe(timeline_frame(result.runs), width="stretch", hide_index=True)
    with st.expander("LLM replies per stage (ok: parsed as asked; repaired: parsed after a fix; "
                     "fallback: the stage's offline form ran)"):
        st.dataframe(llm_frame(result.runs), width="stretch", hide_index=True)


st.title("Systems")
st.caption("The five reference systems side by side on one query: each builds its own index of the "
           "same documents, so their answers, sources and stage times compare directly.")
compare_tab, matrix_tab = st.tabs(["Compare", "Feature matrix"])
with compare_tab:
    collection, _ = resources.require_collection_and_preset("sys_")
    st.caption(f"Collection **{collection.name}** ({resources.collection_summary(collection)}); "
               "change it in the sidebar. Each system reads an index built its own way from "
               "these documents (once, on first use).")
    configs = [page_config(c, collection.name) for c in chosen_configs()]
    query = st.text_input("Query", opening_question(collection, DEFAULT_QUERY), key="sys_query")
    user = resources.session_user()
    resources.searching_as(user)
    if len(configs) < 2:
        st.info("Pick at least two systems.")
    elif st.button("Run", key="sys_run", type="primary") and query.strip():
        def index(config: PipelineConfig) -> tuple[PipelineConfig, IndexRef]:
            return config, resources.index_of(collection, config)

        result = compare(query, configs, index, user=user)
        st.session_state["sys_result"] = result
    result = st.session_state.get("sys_result")
    if isinstance(result, Comparison):
        show_comparison(result)
with matrix_tab:
    st.caption("Generated from the presets: on / off, and mapped where a seed's part runs here "
               "on our equivalent (the note comes from the preset's `# mapped(…)` comment).")
    st.dataframe(matrix_frame(_matrix()), width="stretch", hide_index=True, height=600)
    with st.expander("As Markdown (for the README)"):
        st.code(_matrix().to_markdown(), language="markdown")
