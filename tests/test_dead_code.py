"""Nothing is carried that nothing calls: every module-level function and class of rag/, eval/
and pages/ is named somewhere else in the project (code, tests, notebooks), or is registered by
a decorator. A name written only where it is defined is dead code (issue 38, clause 6)."""

from __future__ import annotations

import ast
import re
import subprocess
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("rag/", "eval/", "pages/")


def _tracked() -> dict[str, str]:
    names = subprocess.run(["git", "ls-files", "*.py", "*.ipynb"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split()
    return {name: (ROOT / name).read_text(encoding="utf-8", errors="ignore")
            for name in names if (ROOT / name).is_file()}


def unreferenced(sources: dict[str, str]) -> list[str]:
    """`path:line name` of each undecorated module-level def/class of the product whose name
    appears nowhere but in its own definition."""
    words: Counter[str] = Counter()
    for text in sources.values():
        words.update(re.findall(r"[A-Za-z_]\w*", text))
    dead = []
    for path, text in sources.items():
        if not (path.endswith(".py") and path.startswith(PRODUCT)):
            continue
        for node in ast.parse(text).body:
            if (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                    and not node.decorator_list and not node.name.startswith("__")
                    and words[node.name] <= 1):
                dead.append(f"{path}:{node.lineno} {node.name}")
    return dead


def test_no_function_or_class_is_defined_and_never_named() -> None:
    assert unreferenced(_tracked()) == []


def test_an_unnamed_function_is_found() -> None:
    sources = {"rag/x.py": "def used() -> None: ...\n\ndef forgotten_helper() -> None: ...\n",
               "rag/y.py": "from rag.x import used\n"}
    assert unreferenced(sources) == ["rag/x.py:3 forgotten_helper"]
