"""No import circle among rag/ modules: the module graph (a package is its __init__) is acyclic.

Every import that runs counts: module level and inside functions (a late import only hides a
circle). Imports under `if TYPE_CHECKING:` never run and are left out, so an annotation may name
a class from a module that imports this one. `from rag.x import y` is an edge to rag.x.y when that
is a module, else to rag.x (whose __init__ runs and must not lead back).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def module_files(package: str = "rag") -> dict[str, Path]:
    """Dotted module name -> file, for every .py under `package` (a package is its __init__)."""
    found = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imported_names(tree: ast.AST, modules: Mapping[str, object]) -> Iterator[str]:
    """The dotted names each import that can run loads (relative imports are not used in rag/)."""
    if isinstance(tree, ast.If) and _type_checking_only(tree):
        for node in tree.orelse:
            yield from imported_names(node, modules)
        return
    if isinstance(tree, ast.Import):
        yield from (alias.name for alias in tree.names)
    elif isinstance(tree, ast.ImportFrom) and tree.module and not tree.level:
        for alias in tree.names:
            full = f"{tree.module}.{alias.name}"
            yield full if full in modules else tree.module
    for child in ast.iter_child_nodes(tree):
        yield from imported_names(child, modules)


def import_graph(sources: Mapping[str, str]) -> dict[str, set[str]]:
    """module -> the modules (of `sources`) it imports."""
    return {
        name: {n for n in imported_names(ast.parse(text), sources) if n in sources and n != name}
        for name, text in sources.items()
    }


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """One circle per strongly connected component with more than one module, as the path
    a → b → … → a, found by Tarjan's algorithm (iterative: the graph has hundreds of nodes)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(component)
    return [_circle(graph, c) for c in components]


def _circle(graph: Mapping[str, set[str]], component: set[str]) -> list[str]:
    """A shortest path from the component's first module back to itself (breadth first)."""
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in sorted(graph[node] & component):
            if nxt == start:
                return [*paths[node], start]
            if nxt not in paths:
                paths[nxt] = [*paths[node], nxt]
                queue.append(nxt)
    raise AssertionError(f"not a cycle: {sorted(component)}")


def test_the_check_finds_module_level_and_late_import_circles() -> None:
    sources = {
        "rag.a": "from rag.b import f\n",
        "rag.b": "def f():\n    import rag.c\n",
        "rag.c": "from rag import a\n",
        "rag": "",
        "rag.d": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from rag.e import E\n",
        "rag.e": "import rag.d\n",
        "rag.p": "from rag.p import q\n",  # a package importing its own submodule: no circle
        "rag.p.q": "import os\n",
    }
    assert cycles(import_graph(sources)) == [["rag.a", "rag.b", "rag.c", "rag.a"]]
    sources["rag.p.q"] = "from rag.p import helper\n"  # the submodule imports the package back
    assert ["rag.p", "rag.p.q", "rag.p"] in cycles(import_graph(sources))


def test_no_import_circle_in_rag() -> None:
    sources = {name: path.read_text(encoding="utf-8") for name, path in module_files().items()}
    found = cycles(import_graph(sources))
    assert not found, "import circles in rag/:\n" + "\n".join(" → ".join(c) for c in found)


def package_graph(graph: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """The same imports between subpackages of rag/ (rag.query.intent counts as rag.query). The
    root package's own modules (config, stages, pipeline, trace, turn, text, …) are left out: they
    are the shared base and the composition layer, which every subpackage meets."""
    def package(module: str) -> str | None:
        parts = module.split(".")
        return ".".join(parts[:2]) if len(parts) > 2 or module in PACKAGES else None

    found: dict[str, set[str]] = {}
    for module, imported in graph.items():
        if (source := package(module)) is None:
            continue
        found.setdefault(source, set())
        found[source] |= {p for m in imported if (p := package(m)) not in (None, source)}
    return found


PACKAGES = {name for name, path in module_files().items() if path.name == "__init__.py"}


def test_subpackages_of_rag_import_each_other_one_way() -> None:
    sources = {name: path.read_text(encoding="utf-8") for name, path in module_files().items()}
    found = cycles(package_graph(import_graph(sources)))
    assert not found, "package circles in rag/:\n" + "\n".join(" → ".join(c) for c in found)


def test_no_stage_module_imports_the_runner() -> None:
    """Stage modules (and so the stage output types they declare) build on the registry
    (rag.stages), never on the runner (rag.pipeline), which only reads the registry."""
    from rag.stages import STAGE_MODULES

    files = module_files()
    graph = import_graph({name: path.read_text(encoding="utf-8") for name, path in files.items()})
    assert set(STAGE_MODULES.values()) <= set(files)
    importers = sorted(m for m in set(STAGE_MODULES.values()) | {"rag.stages", "rag.trace"}
                       if "rag.pipeline" in graph[m])
    assert not importers, f"import the runner: {importers}"


def test_the_llm_client_imports_no_other_subpackage() -> None:
    """rag.llm talks to the endpoint and nothing else: the stages import it, never the reverse
    (the client once lived in rag.generate, whose prompts the context stage used: issue 26). Its
    settings section lives with every other in rag.settings, which imports no stage package."""
    sources = {name: path.read_text(encoding="utf-8") for name, path in module_files().items()}
    assert "rag.llm" in PACKAGES
    assert package_graph(import_graph(sources))["rag.llm"] <= {"rag.settings"}
