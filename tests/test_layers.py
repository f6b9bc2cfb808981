"""Layers point one way: pages/, app.py, notebooks/ -> eval/ -> rag/, and benchmarks/ -> eval/ -> rag/.

`rag/` imports neither streamlit, eval, benchmarks nor pages; `eval/` imports neither streamlit,
benchmarks nor pages (what a user runs does not depend on the research benchmarks).
Every Import / ImportFrom node counts, including lazy imports inside functions.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = {"rag": ("streamlit", "eval", "pages", "benchmarks"), "eval": ("streamlit", "pages", "benchmarks"),
          "benchmarks": ("streamlit", "pages")}


def _top_names(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The top-level packages an import statement loads (relative imports stay inside)."""
    if isinstance(node, ast.Import):
        return [alias.name.split(".")[0] for alias in node.names]
    if node.level or not node.module:
        return []
    return [node.module.split(".")[0]]


def forbidden_imports(source: str, forbidden: tuple[str, ...], filename: str = "<string>"
                      ) -> list[str]:
    """`filename:line imports name` for every import of a forbidden package in `source`."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import | ast.ImportFrom):
            found += [f"{filename}:{node.lineno} imports {name}"
                      for name in _top_names(node) if name in forbidden]
    return found


def layer_violations(package: str, forbidden: tuple[str, ...]) -> list[str]:
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        found += forbidden_imports(path.read_text(encoding="utf-8"), forbidden, rel)
    return found


def test_the_check_finds_top_level_and_lazy_imports() -> None:
    source = (
        "import os\n"
        "import streamlit as st\n"
        "from eval.runs.sweep import run_sweep\n"
        "from . import sibling\n"
        "def later():\n"
        "    import pages.ui.state\n"
        "    from streamlit.testing.v1 import AppTest\n"
        "    import evaluate, rag_pages\n"
    )
    assert forbidden_imports(source, LAYERS["rag"], "rag/x.py") == [
        "rag/x.py:2 imports streamlit",
        "rag/x.py:3 imports eval",
        "rag/x.py:6 imports pages",
        "rag/x.py:7 imports streamlit",
    ]
    assert forbidden_imports("import rag.config\nfrom rag import paths\n", LAYERS["eval"]) == []


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_layers_point_one_way(package: str) -> None:
    assert (ROOT / package).is_dir()
    violations = layer_violations(package, LAYERS[package])
    assert not violations, "\n".join(violations)


def test_every_file_of_a_shared_import_group_exists() -> None:
    from shared_imports import SHARED_IMPORT_GROUPS

    for group, paths in SHARED_IMPORT_GROUPS.items():
        assert paths and all((ROOT / p).is_file() for p in paths), group
