"""Scripts in datasets/ are loaded by path: the folder name is shadowed by the Hugging Face package."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from types import ModuleType

import pytest

from rag.paths import PROJECT_ROOT


def _load(name: str) -> ModuleType:
    path = PROJECT_ROOT / "datasets" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"datasets_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def load_script() -> Callable[[str], ModuleType]:
    return _load
