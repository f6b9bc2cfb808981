"""Rendering helpers for the streamlit pages: HTML, plotly figures, tables, session state.

Modules here compute nothing themselves (no retrieval or scoring): they shape rag/ results for
display and are testable without a running app. Modules that must call streamlit say so in their
docstring (e.g. `widgets`: inputs generated from settings models; `resources`: cached collections).
"""
