"""Remote catalog calls (engine/lakehouse/catalogs/calls.py) through the metadata cache
(engine/lakehouse/catalogs/cache.py):
one call per key at a time, a deadline per call, failures remembered, stuck calls bounded per
catalog, and a statement waiting on a call gives its statements-pool slot to others.

Loads block on events the test releases, so "still running" is a state, not a guess."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from drydock.engine.lakehouse.catalogs.cache import MetadataCache
from drydock.engine.lakehouse.catalogs.calls import CallSettings, CatalogCalls, StatementSlots
from drydock.engine.errors import DrydockError, Errors
from tests.support.waiting import wait_until

TIMEOUT = 0.3


def settings(
    timeout: float = TIMEOUT, failure_ttl: float = 60.0, max_stuck: int = 4
) -> Callable[[], CallSettings]:
    return lambda: CallSettings(timeout=timeout, failure_ttl=failure_ttl, max_stuck=max_stuck)


@pytest.fixture
def release() -> Iterator[threading.Event]:
    event = threading.Event()
    yield event
    event.set()  # loads still blocked end with the test


def attached(calls: CatalogCalls, ttl: float = 60.0) -> MetadataCache:
    cache = MetadataCache(ttl)
    cache.attach("c", calls)
    return cache


def test_statements_asking_for_one_key_share_one_call(release: threading.Event) -> None:
    cache = attached(CatalogCalls(settings(timeout=30)))
    loads: list[int] = []

    def load() -> list[str]:
        loads.append(1)
        release.wait(30)
        return ["db"]

    results: list[Any] = []
    threads = [
        threading.Thread(target=lambda: results.append(cache.get(("dbs",), load))) for _ in range(8)
    ]
    for t in threads:
        t.start()
    release.set()
    for t in threads:
        t.join(30)
    assert results == [["db"]] * 8 and loads == [1]


def test_a_hanging_call_times_out_once_is_remembered_and_its_late_answer_is_kept(
    release: threading.Event,
) -> None:
    cache = attached(CatalogCalls(settings()))
    loads: list[int] = []

    def load() -> list[str]:
        loads.append(1)
        release.wait(30)
        return ["late"]

    start = time.monotonic()
    with pytest.raises(DrydockError) as caught:
        cache.get(("dbs",), load)
    waited = time.monotonic() - start
    assert (
        caught.value.spec is Errors.CATALOG_TIMEOUT
        and "'c' did not answer within 0.3 s" in caught.value.message
    )
    assert TIMEOUT <= waited < TIMEOUT + 2
    with pytest.raises(DrydockError) as again:  # remembered: no new call, no wait
        cache.get(("dbs",), load)
    assert again.value.spec is Errors.CATALOG_TIMEOUT and loads == [1]
    release.set()  # the stuck call answers after all: its answer replaces the remembered failure

    def answer() -> list[str] | None:
        try:
            return cache.get(("dbs",), load)
        except DrydockError:
            return None

    assert wait_until(answer, 10, "the late answer is cached") == ["late"] and loads == [1]


def test_a_failure_is_remembered_until_it_expires_or_refresh() -> None:
    cache = attached(CatalogCalls(settings(failure_ttl=60)))
    loads: list[int] = []

    def load() -> list[str]:
        loads.append(1)
        raise ConnectionRefusedError("connection refused")

    for _ in range(3):
        with pytest.raises(ConnectionRefusedError):
            cache.get(("dbs",), load)
    assert loads == [1]
    cache.invalidate()  # REFRESH CATALOG asks again
    with pytest.raises(ConnectionRefusedError):
        cache.get(("dbs",), load)
    assert loads == [1, 1]


def test_no_such_database_is_an_answer_not_a_remembered_failure() -> None:
    cache = attached(CatalogCalls(settings(failure_ttl=60)))
    loads: list[int] = []

    def load() -> list[str]:
        loads.append(1)
        raise Errors.UNKNOWN_EXTERNAL_DATABASE.error(db="d", catalog="c")

    for _ in range(2):
        with pytest.raises(DrydockError):
            cache.get(("tables", "d"), load)
    assert loads == [1, 1]


def test_calls_stuck_past_their_deadline_are_bounded_per_catalog(release: threading.Event) -> None:
    calls = CatalogCalls(settings(max_stuck=2))
    cache = attached(calls)
    loads: list[str] = []

    def load(name: str) -> Callable[[], list[str]]:
        def run() -> list[str]:
            loads.append(name)
            release.wait(30)
            return [name]

        return run

    for name in ("a", "b"):
        with pytest.raises(DrydockError) as timed_out:
            cache.get(("tables", name), load(name))
        assert timed_out.value.spec is Errors.CATALOG_TIMEOUT
    # a call counts as stuck once it has run past the timeout from its own start, which may be a
    # moment after its waiter gave up
    wait_until(lambda: calls.stuck("c") == 2, 10, "both calls stuck past the timeout")
    with pytest.raises(DrydockError) as refused:
        cache.get(("tables", "x"), load("x"))
    assert (
        refused.value.spec is Errors.CATALOG_OVERLOADED
        and "2 earlier calls" in refused.value.message
    )
    assert loads == ["a", "b"]  # refused without being started (no timing: machines are noisy)
    other = attached(calls)
    other.attach("d", calls)  # the bound is per catalog: another catalog is not refused
    assert other.get(("dbs",), lambda: ["fine"]) == ["fine"]


def test_a_statement_waiting_on_a_catalog_gives_its_slot_to_others(
    release: threading.Event,
) -> None:
    slots = StatementSlots(running=1, waiting=1)
    cache = attached(CatalogCalls(settings(timeout=30), slots))
    loading = threading.Event()

    def load() -> list[str]:
        loading.set()
        release.wait(30)
        return ["db"]

    listing: list[Any] = []
    waiter = threading.Thread(target=lambda: listing.append(slots.run(cache.get, ("dbs",), load)))
    waiter.start()
    assert loading.wait(10)
    # the only slot's holder waits on the catalog: another statement runs meanwhile
    other: list[int] = []
    runner = threading.Thread(target=lambda: other.append(slots.run(lambda: 42)))
    runner.start()
    runner.join(10)
    assert other == [42], "a statement waited for a slot held by a statement waiting on a catalog"
    # the one waiting place is taken: a second statement needing a remote call is refused at once
    with pytest.raises(DrydockError) as refused:
        slots.run(
            attached(CatalogCalls(settings(), slots)).get,
            ("dbs",),
            lambda: release.wait(30) and ["x"],
        )
    assert refused.value.spec is Errors.CATALOG_OVERLOADED
    release.set()
    waiter.join(10)
    assert listing == [["db"]]
