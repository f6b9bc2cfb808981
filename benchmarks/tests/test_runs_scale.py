"""benchmarks/runs_scale.py lists the runs it stored and compares two big ones, and writes JSON
whose figures agree with what it did (no timing is asserted: the machine is shared)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from benchmarks import runs_scale


def test_runs_scale_writes_a_consistent_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "scale.json"
    monkeypatch.setattr(sys, "argv", ["benchmarks/runs_scale.py", "--runs", "12", "--questions",
                                      "300", "--out", str(out)])
    runs_scale.main()
    report = json.loads(out.read_text())
    assert "--runs 12" in report["command"]
    listing, compare = report["listing"], report["compare"]
    assert listing["runs"] == 12 and len(listing["warm_s"]) == 5
    assert listing["warm_median_s"] == sorted(listing["warm_s"])[2]
    assert compare["questions"] == 300 and compare["config_changes"] == ["fusion.k"]
    assert 0 < compare["changed_questions"] <= 300 and 0 < compare["ndcg@10_p"] <= 1
