"""Pages read rag/ through a narrow public API: its packages' exports (rag.index, rag.query, …)
and a few root modules, not the modules inside them. Every import counts, also inside
functions. 56 distinct rag modules before issue 38 clause 6; the cap holds what was reached."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_RAG_MODULES = 23
# imports below a package's level that pages may still use: `ingest` would shadow the
# rag.index.ingest submodule as a package export
DEEP_ALLOWED = {"rag.index.derived"}


def rag_modules(paths: list[Path]) -> dict[str, set[str]]:
    """rag module -> the files (relative to the project) that import it."""
    found: dict[str, set[str]] = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            for name in names:
                if name.split(".")[0] == "rag":
                    found.setdefault(name, set()).add(
                        str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path))
    return found


def _page_files() -> list[Path]:
    return [*sorted((ROOT / "pages").rglob("*.py")), ROOT / "app.py"]


def test_pages_import_few_rag_modules() -> None:
    found = rag_modules(_page_files())
    assert len(found) <= MAX_RAG_MODULES, sorted(found)


def test_pages_import_packages_not_their_insides() -> None:
    deep = {m: files for m, files in rag_modules(_page_files()).items()
            if m.count(".") >= 2 and m not in DEEP_ALLOWED}
    assert deep == {}, "import these from their package (add the name to its _EXPORTS)"


def test_a_deep_import_is_counted(tmp_path: Path) -> None:
    page = tmp_path / "page.py"
    page.write_text("def f() -> None:\n    from rag.context.base import BuiltContext\n")
    assert rag_modules([page]) == {"rag.context.base": {str(page)}}
