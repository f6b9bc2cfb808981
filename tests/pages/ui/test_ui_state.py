import pytest

from pages.ui.state import (
    APP_COLLECTION,
    APP_PRESET,
    BoundedCache,
    current_collection,
    current_preset,
    default_preset,
    session_cache,
)


def test_default_preset_prefers_hybrid_then_first() -> None:
    assert default_preset(["axiom", "hybrid"]) == "hybrid"
    assert default_preset(["axiom", "vexora"]) == "axiom"
    assert default_preset([]) is None


def test_current_preset_falls_back_when_unknown() -> None:
    assert current_preset({APP_PRESET: "vexora"}, ["hybrid", "vexora"]) == "vexora"
    assert current_preset({APP_PRESET: "gone"}, ["hybrid", "vexora"]) == "hybrid"


def test_current_collection_prefers_selection_then_samples() -> None:
    assert current_collection({APP_COLLECTION: "mine"}, ["mine", "samples"]) == "mine"
    assert current_collection({APP_COLLECTION: "deleted"}, ["mine", "samples"]) == "samples"
    assert current_collection({}, ["other"]) == "other"
    assert current_collection({}, []) is None


def test_bounded_cache_computes_once_and_evicts_least_recent() -> None:
    cache: BoundedCache[str, int] = BoundedCache(max_entries=2)
    calls: list[str] = []

    def compute(key: str) -> int:
        calls.append(key)
        return len(key)

    assert cache.get_or_compute("a", lambda: compute("a")) == 1
    assert cache.get_or_compute("a", lambda: compute("a")) == 1
    cache.get_or_compute("bb", lambda: compute("bb"))
    cache.get_or_compute("a", lambda: compute("a"))  # a is now most recent
    cache.get_or_compute("ccc", lambda: compute("ccc"))  # evicts bb
    assert "bb" not in cache and "a" in cache and len(cache) == 2
    assert calls == ["a", "bb", "ccc"]
    assert (cache.hits, cache.misses) == (2, 3)


def test_bounded_cache_rejects_zero_size() -> None:
    with pytest.raises(ValueError):
        BoundedCache(0)


def test_session_cache_is_created_once_per_key() -> None:
    state: dict[str, object] = {}
    first = session_cache(state, "ret_cache", 4)
    assert session_cache(state, "ret_cache") is first
    assert first.max_entries == 4
