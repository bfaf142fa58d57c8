"""The metadata cache both external connectors use, with REFRESH invalidation.

Keys are ``("dbs",)``, ``("tables", db)`` or ``(kind, db, table)``. Loads run outside the lock
(S3 round trips must not serialise every session), and a load that started before a REFRESH is
never cached, so no statement after a REFRESH can see metadata read before it.

The cache is bounded: at most ``max_entries`` keys (a warehouse with 100k tables must not pin 100k
listings), expired entries go first, then the least recently used.

Once attached to the server's :class:`~engine.lakehouse.catalogs.calls.CatalogCalls` (the catalog
manager
attaches every connector it builds), each load is one remote call bounded in time: it runs on a
thread of its own, statements asking for the same key while it runs wait for that one call (up
to its deadline, not a new one each), and a failure or a timeout is remembered for
``catalog_failure_cache_second``, so that a dead endpoint answers at once and is not hammered.
A call that finishes after its statement gave up still fills the cache.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from drydock.engine.errors import DrydockError, Errors

if TYPE_CHECKING:
    from drydock.engine.lakehouse.catalogs.calls import CatalogCalls

T = TypeVar("T")

MAX_ENTRIES = 4096  # per connector; one entry per listing or per (kind, db, table)


@dataclass
class _Call:
    """A load under way: every statement asking for its key meanwhile waits for this one."""

    generation: int
    deadline: float  # monotonic: no statement waits for it past this
    future: Future[Any] = field(default_factory=Future)


class MetadataCache:
    def __init__(self, ttl_seconds: float, max_entries: int = MAX_ENTRIES):
        self._ttl = ttl_seconds
        self._max_entries = max(max_entries, 1)
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, ...], tuple[float, Any]] = {}
        self._failures: dict[tuple[str, ...], tuple[float, BaseException]] = {}
        self._calls: dict[tuple[str, ...], _Call] = {}
        self._generation = 0  # bumped by invalidate(): loads that started before it are not kept
        self._remote: CatalogCalls | None = None
        self._catalog = ""

    def attach(self, catalog: str, calls: CatalogCalls) -> None:
        """From now on every load is a remote call of ``catalog`` run by ``calls``."""
        self._catalog, self._remote = catalog, calls

    def get(self, key: tuple[str, ...], load: Callable[[], T]) -> T:
        now = time.monotonic()
        with self._lock:
            hit = self._entries.pop(key, None)
            if hit is not None and hit[0] > now:
                self._entries[key] = hit  # most recently used last
                return hit[1]  # type: ignore[no-any-return]
            generation = self._generation
            if self._remote is not None:
                failed = self._failures.get(key)
                if failed is not None and failed[0] > now:
                    raise _fresh(failed[1])  # remembered: the endpoint is not asked again yet
                call = self._calls.get(key)
                starting = call is None or call.generation != generation
                if starting:
                    call = _Call(generation, now + self._remote.settings().timeout)
                    self._calls[key] = call
        if self._remote is None:
            return self._load_here(key, load, generation, now)
        assert call is not None
        if starting:
            self._start(key, load, call)
        return self._wait(key, call)  # type: ignore[no-any-return]

    def prefetch(self, key: tuple[str, ...], load: Callable[[], Any]) -> None:
        """Start loading ``key`` unless it is cached, remembered as failed or under way; never
        waits. A listing across catalogs starts every catalog's load first, then waits for each:
        dead catalogs cost one timeout together, not one each."""
        if self._remote is None:
            return
        now = time.monotonic()
        with self._lock:
            hit = self._entries.get(key)
            failed = self._failures.get(key)
            call = self._calls.get(key)
            if (
                (hit is not None and hit[0] > now)
                or (failed is not None and failed[0] > now)
                or (call is not None and call.generation == self._generation)
            ):
                return
            call = _Call(self._generation, now + self._remote.settings().timeout)
            self._calls[key] = call
        self._start(key, load, call)

    def _load_here(
        self, key: tuple[str, ...], load: Callable[[], T], generation: int, now: float
    ) -> T:
        """A connector used outside the server (index job workers, tests): the load runs here."""
        value = load()
        if self._ttl <= 0:
            return value
        with self._lock:
            if generation != self._generation:
                return value  # REFRESH ran meanwhile: this read may predate it, never cache it
            hit = self._entries.get(key)
            if hit is not None and hit[0] > now:
                return hit[1]  # type: ignore[no-any-return]  # two sessions loading: first one wins
            self._store(key, value, now)
        return value

    def _start(self, key: tuple[str, ...], load: Callable[[], Any], call: _Call) -> None:
        assert self._remote is not None
        inner = self._remote.submit(self._catalog, load)

        def finished(done: Future[Any]) -> None:
            exc = done.exception()
            if exc is None:
                call.future.set_result(done.result())
            else:
                call.future.set_exception(exc)
            self._finished(key, call, done)

        inner.add_done_callback(finished)

    def _finished(self, key: tuple[str, ...], call: _Call, done: Future[Any]) -> None:
        """The call ended (maybe long after its statements gave up): keep what it learnt."""
        assert self._remote is not None
        now = time.monotonic()
        exc = done.exception()
        with self._lock:
            if self._calls.get(key) is call:
                del self._calls[key]
            if call.generation != self._generation:
                return  # REFRESH ran meanwhile: this read may predate it, never cache it
            if exc is None:
                self._failures.pop(key, None)
                if self._ttl > 0:
                    self._store(key, done.result(), now)
            elif not _is_answer(exc):
                self._remember_failure(key, exc, now)

    def _wait(self, key: tuple[str, ...], call: _Call) -> Any:
        assert self._remote is not None
        remaining = call.deadline - time.monotonic()
        if remaining > 0 and not call.future.done():
            with self._remote.waiting(self._catalog):  # the statement's pool slot is free meanwhile
                _waits(call.future, remaining)
        if not call.future.done():
            settings = self._remote.settings()
            error = Errors.CATALOG_TIMEOUT.error(
                name=self._catalog, seconds=settings.timeout, what=_what(key)
            )
            with self._lock:
                if call.generation == self._generation and self._calls.get(key) is call:
                    self._remember_failure(key, error, time.monotonic())
            raise _fresh(error)
        exc = call.future.exception()
        if exc is not None:
            raise _fresh(
                exc
                # a copy per statement: one exception object raised by many threads grows its
                # traceback
            )
        return call.future.result()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def _store(self, key: tuple[str, ...], value: Any, now: float) -> None:
        """Under the lock."""
        self._make_room(self._entries, now)
        self._entries[key] = (now + self._ttl, value)

    def _remember_failure(self, key: tuple[str, ...], exc: BaseException, now: float) -> None:
        """Under the lock."""
        assert self._remote is not None
        ttl = self._remote.settings().failure_ttl
        if ttl <= 0:
            return
        self._make_room(self._failures, now)
        self._failures[key] = (
            now + ttl,
            _fresh(exc),
        )  # without its traceback: no frames kept alive

    def _make_room(self, entries: dict[tuple[str, ...], tuple[float, Any]], now: float) -> None:
        """Under the lock, before an insert: drop expired entries, then the least recently used."""
        if len(entries) < self._max_entries:
            return
        for key in [k for k, (expires, _) in entries.items() if expires <= now]:
            del entries[key]
        while len(entries) >= self._max_entries:
            del entries[next(iter(entries))]

    def invalidate(self, db: str | None = None, table: str | None = None) -> None:
        """REFRESH CATALOG (everything) / DATABASE / TABLE. The database list and the database's
        table list go too: a database or table created or dropped outside must be seen. Remembered
        failures go as well: REFRESH is how an operator says "ask the endpoint again"."""
        with self._lock:
            self._generation += 1
            if db is None:
                self._entries.clear()
                self._failures.clear()
                return
            for entries in (self._entries, self._failures):
                doomed = [
                    k
                    for k in entries
                    if k == ("dbs",)
                    or k == ("tables", db)
                    or (len(k) == 3 and k[1] == db and (table is None or k[2] == table))
                ]
                for key in doomed:
                    del entries[key]


def _waits(future: Future[Any], seconds: float) -> bool:
    """Wait up to ``seconds`` for ``future``; whether it is done."""
    try:
        future.exception(timeout=seconds)
    except TimeoutError:
        return False
    return True


def _is_answer(exc: BaseException) -> bool:
    """An answer of the catalog, not a failure to reach it: "no such database or table" is kept
    out of the failure cache (a database created outside must show up at once, as before)."""
    return isinstance(exc, DrydockError) and exc.spec in (
        Errors.UNKNOWN_EXTERNAL_DATABASE,
        Errors.UNKNOWN_EXTERNAL_TABLE,
    )


def _what(key: tuple[str, ...]) -> str:
    if key == ("dbs",):
        return "listing its databases"
    if len(key) == 2 and key[0] == "tables":
        return f"listing the tables of {key[1]}"
    if len(key) == 3:
        return f"loading table {key[1]}.{key[2]}"
    return "loading metadata"


def _fresh(exc: BaseException) -> BaseException:
    """A new exception equal to ``exc`` for one statement to raise."""
    if isinstance(exc, DrydockError):
        return DrydockError(exc.spec, exc.message)
    try:
        fresh = copy.copy(exc)
    except Exception:  # noqa: BLE001 - an exception type that cannot be rebuilt from its args
        return RuntimeError(str(exc))
    fresh.__traceback__ = None
    return fresh
