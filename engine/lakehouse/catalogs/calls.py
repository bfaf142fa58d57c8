"""Remote catalog calls, bounded in time and in number, and never holding the statements pool.

A red team found a catalog whose S3 endpoint accepted connections and never answered: every
listing that reached it waited for the storage library's own timeouts and retries (58-95 s), eight
such statements filled the statements pool, and another user's SELECT waited 56 s. So:

- each remote metadata load (listing databases or tables, opening a table's schema;
  engine/lakehouse/catalogs/cache.py decides what is one) runs on a thread of its own, and the
  statement
  waits for it at most ``catalog_call_timeout_second``, counted from the call's start: statements
  that join a call already under way share its deadline, so a hanging call is waited on once;
- a call that times out keeps running (no library here can be interrupted) but its statement
  goes on; at most ``catalog_max_stuck_calls`` calls past their deadline may run per catalog,
  further calls to that catalog are refused at once;
- a statement waiting on a call gives its statements-pool slot back (:class:`StatementSlots`), so
  other users' statements run meanwhile; at most ``catalog_max_waiting_statements`` statements may
  wait like that at once, beyond that a catalog call is refused at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from drydock.engine.errors import Errors


@dataclass(frozen=True)
class CallSettings:
    timeout: float  # seconds a statement waits for one call
    failure_ttl: float  # seconds a failure is remembered (engine/lakehouse/catalogs/cache.py)
    max_stuck: int  # calls past their deadline allowed per catalog


class StatementSlots:
    """The statements pool's concurrency: ``running`` statements at once, each holding a slot.

    The pool has ``running + waiting`` threads; every task takes a slot first. A statement that
    waits on a remote catalog call hands its slot to the next statement while it waits
    (:meth:`waiting`) and takes one again afterwards, so a slow catalog costs its callers time,
    never other users. Threads outside the pool hold no slot: :meth:`waiting` does nothing there.
    """

    def __init__(self, running: int, waiting: int):
        self.running = running
        self.waiting_limit = waiting
        self._running = threading.Semaphore(running)
        self._waiting = threading.Semaphore(waiting)
        self._local = threading.local()

    def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(*args)`` holding a slot (the pool's tasks run through this)."""
        self._running.acquire()
        self._local.holds = True
        try:
            return fn(*args, **kwargs)
        finally:
            if self._local.holds:
                self._local.holds = False
                self._running.release()

    @contextmanager
    def waiting(self, catalog: str) -> Iterator[None]:
        """The caller waits for a remote call: its slot is free meanwhile."""
        if not getattr(self._local, "holds", False):
            yield
            return
        if not self._waiting.acquire(blocking=False):
            raise Errors.CATALOG_OVERLOADED.error(
                name=catalog,
                detail=f"{self.waiting_limit} statements are already waiting on external "
                "catalogs (config catalog_max_waiting_statements)",
            )
        self._local.holds = False
        self._running.release()
        try:
            yield
        finally:
            self._running.acquire()
            self._local.holds = True
            self._waiting.release()


class CatalogCalls:
    """Starts remote catalog calls on threads of their own; counts the ones still running."""

    def __init__(self, settings: Callable[[], CallSettings], slots: StatementSlots | None = None):
        self.settings = settings
        self.slots = slots
        self._lock = threading.Lock()
        self._running: dict[str, list[float]] = {}  # catalog → start times of its calls under way

    def stuck(self, catalog: str) -> int:
        """Calls to ``catalog`` still running past their deadline."""
        cutoff = time.monotonic() - self.settings().timeout
        with self._lock:
            return sum(1 for started in self._running.get(catalog, ()) if started < cutoff)

    def submit(self, catalog: str, fn: Callable[[], Any]) -> Future[Any]:
        """``fn()`` on a thread of its own; a future already failed when the catalog has too many
        calls stuck past their deadline (the endpoint is not asked once more)."""
        future: Future[Any] = Future()
        settings = self.settings()
        now = time.monotonic()
        with self._lock:
            starts = self._running.setdefault(catalog, [])
            stuck = sum(1 for started in starts if started < now - settings.timeout)
            if stuck >= settings.max_stuck:
                future.set_exception(
                    Errors.CATALOG_OVERLOADED.error(
                        name=catalog,
                        detail=f"{stuck} earlier calls to it are still running past "
                        f"{settings.timeout:g} s (config catalog_max_stuck_calls)",
                    )
                )
                return future
            starts.append(now)

        def call() -> None:
            try:
                value = fn()
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting statement as it is
                future.set_exception(exc)
            else:
                future.set_result(value)
            finally:
                with self._lock:
                    starts.remove(now)
                    if not starts and self._running.get(catalog) is starts:
                        del self._running[catalog]

        # A daemon thread: a call stuck in a storage library must not keep the server from exiting.
        threading.Thread(target=call, name=f"drydock-catalog-{catalog}", daemon=True).start()
        return future

    @contextmanager
    def waiting(self, catalog: str) -> Iterator[None]:
        if self.slots is None:
            yield
            return
        with self.slots.waiting(catalog):
            yield
