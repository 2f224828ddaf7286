"""Named registries (presidio-style): sanitizers, attacks, judges and linkers addressable by name.

Built-in entries register by decorator inside textleak. Sanitizers living outside the engine
(the top-level ``sanitizers`` package, or a third-party package) register through the
``textleak.sanitizers`` entry-point group, so textleak never imports them by name.
"""

from __future__ import annotations

from importlib import metadata
from typing import Any, Callable, Generic, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    def __init__(self, kind: str, entry_point_group: str | None = None):
        self.kind = kind
        self.entry_point_group = entry_point_group
        self._items: dict[str, T] = {}
        self._loaded_entry_points = False

    def register(self, name: str) -> Callable[[T], T]:
        def deco(obj: T) -> T:
            if name in self._items and self._items[name] is not obj:
                raise ValueError(f"{self.kind} {name!r} is already registered")
            self._items[name] = obj
            return obj

        return deco

    def _load_entry_points(self) -> None:
        if self._loaded_entry_points or not self.entry_point_group:
            return
        self._loaded_entry_points = True
        for ep in metadata.entry_points(group=self.entry_point_group):
            if ep.name not in self._items:
                self._items[ep.name] = ep  # resolved on first use

    def get(self, name: str) -> T:
        self._load_entry_points()
        if name not in self._items:
            raise KeyError(f"unknown {self.kind} {name!r}; available: {', '.join(self.names())}")
        item = self._items[name]
        if isinstance(item, metadata.EntryPoint):
            item = item.load()
            self._items[name] = item
        return item

    def create(self, name: str, **kwargs: Any) -> Any:
        return self.get(name)(**kwargs)

    def names(self) -> list[str]:
        self._load_entry_points()
        return sorted(self._items)

    def __contains__(self, name: str) -> bool:
        self._load_entry_points()
        return name in self._items


sanitizers: Registry = Registry("sanitizer", entry_point_group="textleak.sanitizers")
attacks: Registry = Registry("attack")
