"""Saved presets (a tuned configuration) sit in <data dir>/presets: every preset list shows
them and load_preset finds them by name; a bundled name is never overwritten."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.config import (
    PresetError,
    available_presets,
    load_preset,
    save_user_preset,
    user_presets_dir,
    with_overrides,
)


def test_a_saved_preset_is_listed_and_loads_by_name(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path))
    assert "hybrid-tuned" not in available_presets()
    tuned = with_overrides(load_preset("hybrid"), {"name": "hybrid-tuned", "fusion.k": 7})
    path = save_user_preset(tuned)
    assert path.parent == user_presets_dir() == tmp_path / "presets"
    assert available_presets()[-1] == "hybrid-tuned"  # after the bundled ones
    assert load_preset("hybrid-tuned") == tuned


def test_a_bundled_name_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path))
    with pytest.raises(PresetError, match="bundled"):
        save_user_preset(load_preset("hybrid"))
    assert not (tmp_path / "presets" / "hybrid.yaml").exists()
