"""Say once why a run stopped (a failed stage, a blocked query, an early answer) and stop the page."""

from __future__ import annotations

import streamlit as st

from rag.trace import Trace


def stop_reason(trace: Trace) -> tuple[str, str] | None:
    """("error" | "warning" | "info", message) when the run ended before its last stage."""
    for record in trace.records:
        if record.status == "failed":
            return "error", f"{record.stage} failed: {record.reason}"
        if record.status == "blocked":
            return "warning", f"{record.stage} blocked the query: {record.reason}"
        if record.status == "skipped" and record.reason.startswith("not reached: "):
            return "info", record.reason.removeprefix("not reached: ")
    return None


def show_stopped(trace: Trace) -> None:
    """Show why `trace` stopped early, once, and end this page run; do nothing if it did not."""
    found = stop_reason(trace)
    if found is None:
        return
    level, message = found
    {"error": st.error, "warning": st.warning, "info": st.info}[level](message)
    st.stop()
