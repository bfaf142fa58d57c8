"""The metadata cache both external connectors use, with REFRESH invalidation.

Keys are ``("dbs",)``, ``("tables", db)`` or ``(kind, db, table)``. Loads run outside the lock
(S3 round trips must not serialise every session), and a load that started before a REFRESH is
never cached, so no statement after a REFRESH can see metadata read before it.

The cache is bounded: at most ``max_entries`` keys (a warehouse with 100k tables must not pin 100k
listings), expired entries go first, then the least recently used.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

MAX_ENTRIES = 4096  # per connector; one entry per listing or per (kind, db, table)


class MetadataCache:
    def __init__(self, ttl_seconds: float, max_entries: int = MAX_ENTRIES):
        self._ttl = ttl_seconds
        self._max_entries = max(max_entries, 1)
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, ...], tuple[float, Any]] = {}
        self._generation = 0  # bumped by invalidate(): loads that started before it are not kept

    def get(self, key: tuple[str, ...], load: Callable[[], T]) -> T:
        now = time.monotonic()
        with self._lock:
            hit = self._entries.pop(key, None)
            if hit is not None and hit[0] > now:
                self._entries[key] = hit  # most recently used last
                return hit[1]  # type: ignore[no-any-return]
            generation = self._generation
        value = load()
        if self._ttl <= 0:
            return value
        with self._lock:
            if generation != self._generation:
                return value  # REFRESH ran meanwhile: this read may predate it, never cache it
            hit = self._entries.get(key)
            if hit is not None and hit[0] > now:
                return hit[1]  # type: ignore[no-any-return]  # two sessions loading: first one wins
            self._make_room(now)
            self._entries[key] = (now + self._ttl, value)
        return value

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def _make_room(self, now: float) -> None:
        """Under the lock, before an insert: drop expired entries, then the least recently used."""
        if len(self._entries) < self._max_entries:
            return
        for key in [k for k, (expires, _) in self._entries.items() if expires <= now]:
            del self._entries[key]
        while len(self._entries) >= self._max_entries:
            del self._entries[next(iter(self._entries))]

    def invalidate(self, db: str | None = None, table: str | None = None) -> None:
        """REFRESH CATALOG (everything) / DATABASE / TABLE. The database list and the database's
        table list go too: a database or table created or dropped outside must be seen."""
        with self._lock:
            self._generation += 1
            if db is None:
                self._entries.clear()
                return
            doomed = [k for k in self._entries if k == ("dbs",) or k == ("tables", db)
                      or (len(k) == 3 and k[1] == db and (table is None or k[2] == table))]
            for key in doomed:
                del self._entries[key]
