"""Rendering helpers for the streamlit pages: HTML, plotly figures, tables, session state.

Modules here compute nothing themselves (no retrieval or scoring): they shape rag/ results for
display and are testable without a running app. `widgets` (inputs generated from settings models)
and `resources` (cached collections, the sample-collection build) are the ones that use streamlit.
"""
