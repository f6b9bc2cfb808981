"""The guard's two verdicts side by side (patterns over every decoded view, and the learned
detector), for the Query Lab: what each found, and the clean text later stages read."""

from __future__ import annotations

import streamlit as st

from rag.query import GuardVerdict


def show_guard(verdict: GuardVerdict | None, skipped_reason: str) -> None:
    if verdict is None:
        st.caption(f"Guard skipped: {skipped_reason}")
        return
    if not verdict.allowed:
        st.error(f"Blocked ({verdict.verdict}): {verdict.reason}")
    else:
        st.success(f"Allowed · scripts: {', '.join(verdict.scripts) or '–'} · "
                   f"{verdict.original_chars} characters in, {len(verdict.text)} out")
    patterns = list(verdict.families)
    learned = verdict.learned
    left, right = st.columns(2)
    found = ", ".join(patterns) if patterns else "nothing found"
    left.markdown(f"**Patterns** (every decoded view): {found}")
    right.markdown("**Learned detector**: " + (
        "off or not installed" if learned is None else
        f"p = {learned.probability:.2f} on the {learned.view} view, threshold {learned.threshold:.2f} "
        f"({'flagged' if learned.flagged else 'not flagged'}; model {learned.model})"))
    e5 = verdict.e5
    st.markdown("**Multilingual e5 detector**: " + (
        verdict.e5_note or "off" if e5 is None else
        f"p = {e5.probability:.2f}, threshold {e5.threshold:.2f} "
        f"({'flagged' if e5.flagged else 'not flagged'}; model {e5.model})"))
    stacked = verdict.stacked
    st.markdown("**Decision**: " + (
        "any pattern or detector over its own threshold blocks" if stacked is None else
        f"stacked score p = {stacked.probability:.2f} ({stacked.view} variant), threshold "
        f"{stacked.threshold:.2f} ({'blocks' if stacked.flagged else 'allows'}; model {stacked.model})"))
    if verdict.allowed:
        st.caption(f"Later stages read: {verdict.text!r}")
        for warning in verdict.warnings:
            st.warning(warning)
