"""engine/support/lru.py: the one bounded LRU mapping."""

from __future__ import annotations

import pytest

from drydock.engine.support.lru import Lru


def test_the_least_recently_used_entry_goes_first_and_is_handed_over() -> None:
    evicted: list[tuple[str, int]] = []
    cache: Lru[str, int] = Lru(2, on_evict=lambda k, v: evicted.append((k, v)))
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # a is now the most recent
    cache.put("c", 3)
    assert evicted == [("b", 2)] and list(cache) == ["a", "c"] and len(cache) == 2
    assert cache.touch("a") and not cache.touch("b")
    cache.put("d", 4)
    assert evicted[-1] == ("c", 3) and list(cache) == ["a", "d"]


def test_peek_and_in_do_not_count_as_use() -> None:
    cache: Lru[str, int] = Lru(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.peek("a") == 1 and "a" in cache
    cache.put("c", 3)
    assert "a" not in cache and cache.get("a") is None and cache.peek("a") is None


def test_put_of_a_held_key_replaces_and_refreshes_it() -> None:
    cache: Lru[str, int] = Lru(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 10)
    cache.put("c", 3)
    assert list(cache) == ["a", "c"] and cache.get("a") == 10
    assert cache.pop("a") == 10 and cache.pop("a") is None
    cache.clear()
    assert len(cache) == 0


def test_a_cache_holds_at_least_one_entry() -> None:
    with pytest.raises(ValueError):
        Lru(0)
