"""The feature matrix: generated from the presets' settings and their `# mapped(…)` comments."""

from rag.config import load_preset, with_overrides
from rag.systems import FEATURES, SYSTEMS, Probe, features_matrix


def probe(key: str) -> Probe:
    return next(f.probe for f in FEATURES if f.key == key)


def test_cells_follow_the_preset_settings() -> None:
    m = features_matrix()
    assert m.cell("fusion", "axiom").text == "on: RRF k=60"
    assert m.cell("fusion", "vexora").detail == "relative score alpha=0.3"
    assert m.cell("multi_query", "echomind").status == "on"
    assert m.cell("multi_query", "intellidocs").status == "off"
    graph = m.cell("graph", "vexora")
    assert graph.status == "mapped" and "Neo4j" in graph.note
    assert m.cell("vector_store", "intellidocs").status == "mapped"  # a Qdrant server → embedded
    assert m.cell("dense_model", "intellidocs").text == "on: all-MiniLM-L6-v2"


def test_probes_read_the_config_not_a_fixed_table() -> None:
    echomind = load_preset("echomind")
    assert probe("time_window")(echomind) is None
    window = with_overrides(echomind, {"postprocess.time_window_hours": 48})
    assert probe("time_window")(window) == "48 h"
    assert probe("graph")(with_overrides(echomind, {"context.graph.enabled": True})) == "depth 2"
    assert probe("intent_router")(with_overrides(echomind, {"query.enabled": False})) is None


def test_rows_and_markdown_have_one_line_per_feature() -> None:
    m = features_matrix(("axiom", "vexora"))
    rows = m.rows()
    assert len(rows) == len(FEATURES) and set(rows[0]) == {"stage", "feature", "axiom", "vexora"}
    table, notes = m.to_markdown().split("\n\nMapped parts")
    lines = table.splitlines()
    assert lines[0] == "| stage | feature | axiom | vexora |" and len(lines) == len(FEATURES) + 2
    assert "- **vexora**, entity graph enrichment: Neo4j" in notes
    assert len(features_matrix().systems) == len(SYSTEMS)
