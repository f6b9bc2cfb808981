"""How tall rag/ is, measured on its import graph with folders as units, and a cap on it.

Units: each subpackage of rag/ (rag.index, rag.retrieve, …) and each module at rag/'s root
(rag.config, rag.stages, …). An import is eager (module level), lazy (inside a function) or
typing (under `if TYPE_CHECKING:`). Layers come from the eager imports: a unit sits one layer
above the highest unit it imports (units in one eager circle share a layer). An import of any
kind from a unit to a unit on a higher layer "runs back up". Circles are counted over every
import, typing ones included. The caps below hold what has been reached; lower them as the
house gets lower, never raise them. `python tests/test_rag_floors.py` prints the figures.
"""

from __future__ import annotations

import ast
import json
from collections import defaultdict
from collections.abc import Iterator, Mapping

from test_import_cycles import _type_checking_only, module_files

MAX_LAYERS = 9  # the stages read their shared records from rag.records and rag.outputs (was 13)
MAX_BACK_UP = 2  # model_loading → rerank (its registry), stages → index (IndexRef resolved late)
MAX_EAGER_KNOT = 0  # no module-level import circle between units (the config knot was 12)
MAX_KNOT = 0  # no circle either counting lazy and TYPE_CHECKING imports (was 13)


def unit(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2])


def _imports(tree: ast.AST, modules: Mapping[str, object], kind: str) -> Iterator[tuple[str, str]]:
    """(imported module, kind) for each import in `tree`; kind becomes lazy inside a function
    and typing under TYPE_CHECKING."""
    if isinstance(tree, ast.If) and _type_checking_only(tree):
        for node in tree.body:
            yield from _imports(node, modules, "typing")
        for node in tree.orelse:
            yield from _imports(node, modules, kind)
        return
    if isinstance(tree, ast.FunctionDef | ast.AsyncFunctionDef) and kind == "eager":
        kind = "lazy"
    if isinstance(tree, ast.Import):
        yield from ((alias.name, kind) for alias in tree.names)
    elif isinstance(tree, ast.ImportFrom) and tree.module and not tree.level:
        for alias in tree.names:
            full = f"{tree.module}.{alias.name}"
            yield (full if full in modules else tree.module), kind
    for child in ast.iter_child_nodes(tree):
        yield from _imports(child, modules, kind)


def unit_edges() -> dict[tuple[str, str], set[str]]:
    """(from unit, to unit) -> the kinds of import between them."""
    files = module_files()
    edges: dict[tuple[str, str], set[str]] = defaultdict(set)
    for name, path in files.items():
        for target, kind in _imports(ast.parse(path.read_text(encoding="utf-8")), files, "eager"):
            if target in files and unit(target) != unit(name):
                edges[(unit(name), unit(target))].add(kind)
    return edges


def components(graph: Mapping[str, set[str]]) -> dict[str, str]:
    """unit -> a name for its strongly connected component (the smallest unit in it)."""
    reach = {u: _reachable(graph, u) for u in graph}
    return {u: min(v for v in reach[u] | {u} if u in reach[v] or v == u) for u in graph}


def _reachable(graph: Mapping[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = list(graph[start])
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo += graph.get(node, ())
    return seen


def knots(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The units of each import circle (a strongly connected component of more than one)."""
    members: dict[str, list[str]] = defaultdict(list)
    for u, g in components(graph).items():
        members[g].append(u)
    return sorted((sorted(m) for m in members.values() if len(m) > 1), key=len, reverse=True)


def measure() -> dict[str, object]:
    edges = unit_edges()
    units = sorted({u for pair in edges for u in pair})
    eager: dict[str, set[str]] = {u: set() for u in units}
    every: dict[str, set[str]] = {u: set() for u in units}
    for (a, b), kinds in edges.items():
        every[a].add(b)
        if "eager" in kinds:
            eager[a].add(b)
    group = components(eager)  # units in one eager circle share a layer
    layer: dict[str, int] = {}

    def level(g: str) -> int:
        if g not in layer:
            below = {group[b] for u in units if group[u] == g for b in eager[u]} - {g}
            layer[g] = 1 + max((level(b) for b in below), default=-1)
        return layer[g]

    floors = {u: level(group[u]) for u in units}
    back_up = sorted(f"{a} → {b}" for (a, b) in edges if floors[b] > floors[a])
    return {
        "layers": max(floors.values()) + 1,
        "back_up": len(back_up),
        "back_up_imports": back_up,
        "eager_knots": knots(eager),
        "knots": knots(every),
        "floors": {u: floors[u] for u in sorted(units, key=lambda u: (floors[u], u))},
    }


def test_rag_is_no_taller_than_it_was() -> None:
    found = measure()
    assert found["layers"] <= MAX_LAYERS, found["floors"]
    assert found["back_up"] <= MAX_BACK_UP, found["back_up_imports"]
    eager, every = found["eager_knots"], found["knots"]
    assert isinstance(eager, list) and isinstance(every, list)
    assert max(map(len, eager), default=0) <= MAX_EAGER_KNOT, eager
    assert max(map(len, every), default=0) <= MAX_KNOT, every


if __name__ == "__main__":
    print(json.dumps(measure(), indent=2))
