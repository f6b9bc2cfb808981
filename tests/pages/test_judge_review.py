"""Judge page, "Review mined questions" (issue 36, item 4): keep / fix / drop a seeded sample of
a mined set from the keyboard's buttons, verdicts stored with the set, kept share per rule
shown, a rule dropped more often than not switched off for the collection's next mining, and
the verdicts applied to the stored set."""

from __future__ import annotations

from pathlib import Path

import pytest
from own_collection import build_collection
from streamlit.testing.v1 import AppTest

from eval.testsets import review
from eval.testsets.mine import mine_collection
from eval.testsets.store import read_rows
from pages.ui.state import APP_COLLECTION

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "judge.py")


@pytest.mark.usefixtures("hashing_presets")
def test_review_keep_fix_drop_switches_a_rejected_rule_off(tmp_path: Path) -> None:
    name = build_collection(tmp_path)
    at = AppTest.from_file(PAGE, default_timeout=300)
    at.session_state[APP_COLLECTION] = name
    at.run().button(key="judge_new_go").click().run()
    assert not at.exception, at.exception
    rows = read_rows(name, "mined")
    sample = review.review_sample(rows)
    assert len(sample) == min(20, len(rows)) >= 3
    assert any("Review" in e.label and "mined questions" in e.label for e in at.expander)

    first = sample[0]
    at.text_input(key=f"review_fix_{first['id']}").set_value("What does a widget do, exactly?").run()
    at.button(key="review_fixed").click().run()
    for _ in sample[1:]:
        at.button(key="review_drop").click().run()
        assert not at.exception, at.exception
    stored = review.verdicts(name, "mined")
    assert stored[str(first["id"])]["verdict"] == "fix"
    assert sum(v["verdict"] == "drop" for v in stored.values()) == len(sample) - 1
    table = at.dataframe[0].value
    assert set(table["rule"]) == {review.row_rule(r) for r in sample}
    dropped_rules = {s.rule for s in review.shares(stored) if s.rejected}
    assert dropped_rules and review.rules_off(name) == dropped_rules
    assert any("Switched off" in w.value for w in at.warning)

    # the next mining of this collection leaves the switched-off rules out, and says so
    again = mine_collection(name)
    assert not {r["provenance"]["rule"] for r in again.rows} & dropped_rules
    assert again.skipped.get("rule switched off after review", 0) > 0

    at.button(key="review_apply").click().run()
    kept = read_rows(name, "mined")
    assert len(kept) == len(rows) - (len(sample) - 1)
    assert any(r["question"] == "What does a widget do, exactly?" for r in kept)

    # the set's judging file follows: a save from the Judge page neither brings the dropped
    # rows back nor the fixed question's old text
    from eval.judging.export import export_rows
    from eval.judging.store import open_judging

    assert not at.exception, at.exception
    exported = export_rows(open_judging(name, "mined"))
    ids = {str(r["id"]) for r in exported}
    assert not ids & {str(r["id"]) for r in sample[1:]}
    assert any(r["question"] == "What does a widget do, exactly?" for r in exported)
