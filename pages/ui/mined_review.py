"""The Judge page's "Review 20 mined questions" panel: a person reads a seeded sample of a mined
set's rows — question, rule, the start of its answer span — and keeps (K), fixes (F) or drops
(X; D is the judging view's "judged enough") each. Verdicts are stored with the set
(eval.testsets.review); the kept share per rule is shown, and rules dropped more often than not
are switched off for the collection's next mining. "Apply the verdicts" rewrites the stored set."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from eval.testsets import review
from eval.testsets.quality import describe, lexical_overlap, quality_report, row_rule
from eval.testsets.store import read_rows

POS = "review_pos"  # session key prefix: which sampled row the panel shows


def _span(row: Mapping[str, Any]) -> str:
    return " ".join(str(s.get("text", "")) for s in row.get("spans") or ())


def shares_frame(stored: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame([{"rule": s.rule, "reviewed": s.reviewed, "kept": s.kept, "fixed": s.fixed,
                          "dropped": s.dropped, "kept share": f"{s.kept_share:.0%}",
                          "switched off": "yes" if s.rejected else ""}
                         for s in review.shares(stored)])


def _show_row(collection: str, set_name: str, row: Mapping[str, Any], at: int, total: int) -> None:
    st.markdown(f"**{at + 1}/{total}** · rule `{row_rule(row)}` · "
                f"overlap {lexical_overlap(str(row['question']), _span(row)):.0%}")
    st.markdown(f"#### {row['question']}")
    st.caption(_span(row)[:600])
    fixed = st.text_input("Fixed question (for F)", str(row["question"]), key=f"review_fix_{row['id']}")
    cols = st.columns(4)
    chosen: review.Verdict | None = None
    if cols[0].button("Keep (K)", key="review_keep", shortcut="K", type="primary"):
        chosen = "keep"
    if cols[1].button("Fix (F)", key="review_fixed", shortcut="F",
                      disabled=fixed.strip() == str(row["question"]).strip()):
        chosen = "fix"
    if cols[2].button("Drop (X)", key="review_drop", shortcut="X"):
        chosen = "drop"
    if cols[3].button("Back", key="review_back", disabled=at == 0):
        st.session_state[f"{POS}_{set_name}"] = at - 1
        st.rerun()
    if chosen is not None:
        review.record(collection, set_name, row, chosen, fixed if chosen == "fix" else None)
        review.update_rules(collection, set_name)
        st.session_state[f"{POS}_{set_name}"] = at + 1
        st.rerun()


def review_panel(collection: str, set_name: str) -> None:
    """The panel, for a set with mined rows (nothing is shown for other sets)."""
    rows = read_rows(collection, set_name)
    sample = review.review_sample(rows)
    if not sample:
        return
    stored = review.verdicts(collection, set_name)
    done = sum(str(r["id"]) in stored for r in sample)
    with st.expander(f"Review {len(sample)} mined questions ({done} reviewed) before trusting "
                     "the set", icon=":material/fact_check:", expanded=done < len(sample)):
        st.caption(describe(quality_report(rows)))
        at = st.session_state.get(f"{POS}_{set_name}")
        if at is None:  # start at the first row not reviewed yet
            at = next((i for i, r in enumerate(sample) if str(r["id"]) not in stored), len(sample))
        if at < len(sample):
            _show_row(collection, set_name, sample[at], at, len(sample))
        else:
            st.success(f"All {len(sample)} sampled questions reviewed.")
        if stored:
            st.dataframe(shares_frame(stored), hide_index=True, width="stretch")
            off = review.rules_off(collection)
            if off:
                st.warning("Switched off for this collection's next mining (a person dropped "
                           f"them more often than not): {', '.join(sorted(off))}.")
            if st.button("Apply the verdicts to the set", key="review_apply",
                         help="Dropped rows leave the stored set; fixed questions replace theirs"):
                applied = review.apply_review(collection, set_name)
                st.success(f"Applied: {applied['drop']} dropped, {applied['fix']} fixed, "
                           f"{applied['keep']} kept as mined.")
