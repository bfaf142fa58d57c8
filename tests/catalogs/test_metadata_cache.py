"""The connectors' metadata cache (engine/lakehouse/catalogs/cache.py) is bounded: expired entries
and then the
least recently used make room, so a warehouse with many tables cannot grow it without limit."""

from __future__ import annotations

import time

from drydock.engine.lakehouse.catalogs.cache import MAX_ENTRIES, MetadataCache


def test_the_cache_never_holds_more_than_its_bound() -> None:
    cache = MetadataCache(ttl_seconds=3600, max_entries=100)
    for i in range(10_000):
        cache.get(("columns", "db", f"t{i}"), lambda i=i: i)
    assert len(cache) == 100


def test_the_default_bound_applies_to_a_cache_built_with_a_ttl_only() -> None:
    cache = MetadataCache(ttl_seconds=3600)
    for i in range(MAX_ENTRIES + 500):
        cache.get(("columns", "db", f"t{i}"), lambda i=i: i)
    assert len(cache) == MAX_ENTRIES


def test_the_least_recently_used_entry_is_evicted_first() -> None:
    cache = MetadataCache(ttl_seconds=3600, max_entries=3)
    loads: list[str] = []

    def load(name: str) -> str:
        loads.append(name)
        return name

    for name in ("a", "b", "c"):
        cache.get((name,), lambda name=name: load(name))
    cache.get(("a",), lambda: load("a"))  # a hit: a becomes the most recent
    cache.get(("d",), lambda: load("d"))  # evicts b
    cache.get(("a",), lambda: load("a"))
    cache.get(("b",), lambda: load("b"))
    assert loads == ["a", "b", "c", "d", "b"]


def test_expired_entries_make_room_before_live_ones() -> None:
    cache = MetadataCache(ttl_seconds=0.05, max_entries=2)
    cache.get(("old",), lambda: 1)
    time.sleep(0.1)
    cache._ttl = 3600  # later entries live long
    cache.get(("live",), lambda: 2)
    cache.get(("new",), lambda: 3)  # the expired one goes, not the live one
    loads: list[int] = []
    assert cache.get(("live",), lambda: loads.append(1) or 9) == 2 and loads == []
