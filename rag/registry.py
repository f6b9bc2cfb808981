"""A named registry of strategies: one per stage family, so a new strategy is a module plus an entry."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class UnknownStrategyError(KeyError, ValueError):
    """Raised for a name that is not registered; the message lists the valid names."""

    def __str__(self) -> str:  # KeyError would quote the message otherwise
        return str(self.args[0]) if self.args else ""


class Registry(Generic[T]):
    """Maps a strategy name to an entry (a class, a factory or a function)."""

    def __init__(self, family: str) -> None:
        self.family = family
        self._entries: dict[str, T] = {}
        self._lazy: dict[str, str] = {}  # name -> module that registers it when imported

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: `@REGISTRY.register("rrf")` above a class or function."""

        def decorate(entry: T) -> T:
            if name in self._entries:
                raise ValueError(f"{self.family} strategy {name!r} is registered twice")
            self._entries[name] = entry
            return entry

        return decorate

    def add(self, name: str, entry: T) -> None:
        """Register without a decorator."""
        self.register(name)(entry)

    def add_lazy(self, name: str, module: str) -> None:
        """`name` is registered by `module`, imported on the first `get(name)`: an entry whose
        module pulls in a heavy library costs nothing until it is used."""
        self._lazy[name] = module

    def get(self, name: str) -> T:
        """The entry for `name`, or an error that lists every valid name."""
        if name not in self._entries and name in self._lazy:
            importlib.import_module(self._lazy[name])
        try:
            return self._entries[name]
        except KeyError:
            valid = ", ".join(sorted(self._entries)) or "(none registered)"
            raise UnknownStrategyError(
                f"unknown {self.family} strategy {name!r}; valid: {valid}"
            ) from None

    def names(self) -> list[str]:
        return sorted({*self._entries, *self._lazy})

    def __contains__(self, name: object) -> bool:
        return name in self._entries or name in self._lazy

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())
