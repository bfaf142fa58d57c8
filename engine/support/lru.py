"""One bounded least-recently-used mapping for every cache that must not grow with its input
(parsed statements, statement shapes, verdicts, registered Arrow objects, finished invocations).

Not locked: each user already holds a lock around more than the cache, or owns it alone.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Lru(Generic[K, V]):
    """At most ``capacity`` entries; a put past it drops the least recently used one (handing it
    to ``on_evict``, e.g. to release what the entry holds). ``get`` and ``touch`` count as use;
    ``peek`` and ``in`` do not."""

    def __init__(self, capacity: int, on_evict: Callable[[K, V], Any] | None = None):
        if capacity < 1:
            raise ValueError(f"an LRU cache holds at least one entry, not {capacity}")
        self.capacity = capacity
        self._on_evict = on_evict
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        if key not in self._items:
            return None
        self._items.move_to_end(key)
        return self._items[key]

    def touch(self, key: K) -> bool:
        """Mark ``key`` used; False when it is not held."""
        if key not in self._items:
            return False
        self._items.move_to_end(key)
        return True

    def peek(self, key: K) -> V | None:
        return self._items.get(key)

    def put(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.capacity:
            old_key, old_value = self._items.popitem(last=False)
            if self._on_evict is not None:
                self._on_evict(old_key, old_value)

    def pop(self, key: K) -> V | None:
        return self._items.pop(key, None)

    def clear(self) -> None:
        self._items.clear()

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[K]:
        """Keys, least recently used first."""
        return iter(list(self._items))
