"""Keep qdrant-client from importing fastembed: we hand Qdrant vectors, never texts, and
fastembed's import costs ~0.65 s of CPU on every cold query. qdrant-client imports it when it is
imported and again when a client is made; during both, `import fastembed` fails as if it were
not installed. Outside them fastembed imports normally (our fastembed backend uses it)."""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def fastembed_hidden() -> Iterator[None]:
    """`import fastembed` fails inside this block, unless fastembed is already loaded."""
    if "fastembed" in sys.modules:
        yield
        return
    sys.modules["fastembed"] = None  # type: ignore[assignment]  # the import system's "absent"
    try:
        yield
    finally:
        if "fastembed" in sys.modules and sys.modules["fastembed"] is None:
            del sys.modules["fastembed"]


class _QdrantImportHidingFastembed(importlib.abc.MetaPathFinder):
    """Wraps the first import of qdrant_client in fastembed_hidden()."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "qdrant_client":
            return None
        sys.meta_path.remove(self)  # once; and the lookup below must not find us again
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        real = spec.loader

        class Loader(importlib.abc.Loader):
            def create_module(self, spec: Any) -> Any:
                return real.create_module(spec)

            def exec_module(self, module: Any) -> None:
                with fastembed_hidden():
                    real.exec_module(module)

        spec.loader = Loader()
        return spec


def hide_fastembed_from_qdrant_import() -> None:
    if "qdrant_client" not in sys.modules:
        sys.meta_path.insert(0, _QdrantImportHidingFastembed())
