import yaml

from pages.ui.chunk_lab import (
    export_preset,
    run_key,
    run_strategy,
    size_series,
    stats_frame,
)
from rag.config import PipelineConfig, load_preset
from rag.documents import parse_bytes

TEXT = "\n\n".join(
    f"Section {i}. " + " ".join(f"Sentence {i}.{j} talks about topic {j}." for j in range(8))
    for i in range(6)
)


def _doc():
    return parse_bytes("notes.txt", TEXT.encode())


def test_run_reports_stats_per_level_and_tokens_per_chunk() -> None:
    doc = _doc()
    run = run_strategy(doc, "parent_child", {"parent_size": 600, "parent_overlap": 0,
                                             "child_size": 200, "child_overlap": 20})
    assert list(run.stats) == ["parent", "child"]
    assert set(run.tokens) == {c.chunk_id for c in run.chunks}
    assert all(n > 0 for n in run.tokens.values())
    frame = stats_frame([run])
    assert list(frame["level"]) == ["parent", "child"]
    assert frame.loc[1, "chunks"] == sum(1 for c in run.chunks if c.level == "child")


def test_smaller_size_gives_more_chunks_in_the_stats_table() -> None:
    doc = _doc()
    big = run_strategy(doc, "recursive", {"size": 800, "overlap": 0})
    small = run_strategy(doc, "recursive", {"size": 200, "overlap": 0})
    frame = stats_frame([big, small])
    assert frame.loc[1, "chunks"] > frame.loc[0, "chunks"]
    assert frame.loc[1, "max chars"] <= 200


def test_size_series_names_levels_only_when_several() -> None:
    doc = _doc()
    flat = run_strategy(doc, "fixed", {"size": 300, "overlap": 0})
    nested = run_strategy(doc, "parent_child", {})
    series = size_series([flat, nested], "characters")
    assert set(series) == {"fixed", "parent_child · parent", "parent_child · child"}
    assert series["fixed"] == [c.size for c in flat.chunks]
    assert size_series([flat], "tokens")["fixed"] == [flat.tokens[c.chunk_id] for c in flat.chunks]


def test_run_key_changes_with_params() -> None:
    doc = _doc()
    assert run_key(doc, "fixed", {"size": 1}) != run_key(doc, "fixed", {"size": 2})
    assert run_key(doc, "fixed", {"a": 1, "b": 2}) == run_key(doc, "fixed", {"b": 2, "a": 1})


def test_export_round_trips_through_load_preset(tmp_path) -> None:
    text = export_preset(PipelineConfig(name="base"), "fixed", {"size": 300, "overlap": 30})
    assert yaml.safe_load(text)["chunking"] == {"strategy": "fixed", "params": {"size": 300, "overlap": 30}}
    path = tmp_path / "exported.yaml"
    path.write_text(text)
    loaded = load_preset(path)
    assert loaded.chunking.strategy == "fixed" and loaded.name == "base-fixed"


def test_chunk_frame_names_parents_by_label() -> None:
    from pages.ui.html import chunk_labels
    from pages.ui.tables import chunk_frame

    run = run_strategy(_doc(), "parent_child", {"parent_size": 600, "parent_overlap": 0,
                                                "child_size": 200, "child_overlap": 0})
    labels = chunk_labels(run.chunks)
    frame = chunk_frame(run.chunks, labels)
    children = frame[frame["level"] == "child"]
    assert len(frame) == len(run.chunks)
    assert children["parent"].str.startswith("P").all()
    assert (frame["chars"] == frame["end"] - frame["start"]).all()
