"""Rendering helpers for the streamlit pages: HTML, plotly figures, tables, session state.

Everything here is a pure function of rag/ data (no retrieval or scoring), testable without a
running streamlit app; `rag.ui.widgets` is the one module that draws streamlit widgets.
"""
