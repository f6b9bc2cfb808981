"""Session-state keys shared by pages, their accessors, and a bounded per-session result cache.

Keys carry their owner's prefix: "app_" for the sidebar (shared), "docs_", "chunk_", "ret_" … for
pages. Accessors take any mapping with get/set, so they work on `st.session_state` and in plain tests.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, Protocol, TypeVar

APP_COLLECTION = "app_collection"  # name of the collection the sidebar selected, or None
APP_PRESET = "app_preset"  # name of the preset the sidebar selected
APP_NEXT_COLLECTION = "app_next_collection"  # a page's pick (a new collection) for the next run
APP_DOCUMENTS = "app_documents"  # Documents the Documents page ingested this session
APP_USER = "app_user"  # who is using the app (blank: anonymous); views show what they may see
SAMPLE_COLLECTION = "samples"  # the collection built from datasets/samples/
PREFERRED_PRESETS = ("hybrid", "intellidocs", "bm25")

K = TypeVar("K", bound=Hashable)


class State(Protocol):
    """What the accessors need: `st.session_state` and a plain dict both fit."""

    def get(self, key: str, /) -> Any: ...

    def __setitem__(self, key: str, value: Any, /) -> None: ...

V = TypeVar("V")


def default_preset(available: list[str]) -> str | None:
    """The preset a fresh session starts with: hybrid when bundled, else the first one."""
    for name in PREFERRED_PRESETS:
        if name in available:
            return name
    return available[0] if available else None


def current_preset(state: State, available: list[str]) -> str | None:
    """The sidebar's preset, falling back to the default when unset or no longer bundled."""
    name = state.get(APP_PRESET)
    return name if name in available else default_preset(available)


def current_collection(state: State, existing: list[str]) -> str | None:
    """A page's pending pick or the sidebar's collection if it exists, else the sample or the
    first existing one."""
    for name in (state.get(APP_NEXT_COLLECTION), state.get(APP_COLLECTION)):
        if name in existing:
            return name
    if SAMPLE_COLLECTION in existing:
        return SAMPLE_COLLECTION
    return existing[0] if existing else None


class BoundedCache(Generic[K, V]):
    """Least-recently-used results for one session; counts misses so tests can see recomputation."""

    def __init__(self, max_entries: int = 16) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.max_entries = max_entries
        self._items: OrderedDict[K, V] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get_or_compute(self, key: K, compute: Callable[[], V]) -> V:
        if key in self._items:
            self.hits += 1
            self._items.move_to_end(key)
            return self._items[key]
        self.misses += 1
        value = compute()
        self._items[key] = value
        if len(self._items) > self.max_entries:
            self._items.popitem(last=False)  # evict the least recently used
        return value

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)


def session_cache(
    state: State, key: str, max_entries: int = 16
) -> BoundedCache[Any, Any]:
    """The BoundedCache stored under `key` in session state, created on first use."""
    cache = state.get(key)
    if not isinstance(cache, BoundedCache):
        cache = BoundedCache(max_entries)
        state[key] = cache
    return cache
