"""engine/sql/deadlines.py: the one thread behind max_execution_time, on its own (no server).

Events, not sleeps, say when a callback ran; the bounds on waiting are generous."""

from __future__ import annotations

import threading
import time

import pytest

from drydock.engine.store.config import ConfigField, disk_size, memory_size
from drydock.engine.sql.deadlines import Deadlines
from drydock.engine.errors import DrydockError


def test_a_deadline_fires_once_it_passes_and_repeats_while_asked() -> None:
    deadlines = Deadlines()
    fired: list[float] = []
    three = threading.Event()

    def fire() -> bool:
        fired.append(time.monotonic())
        if len(fired) == 3:
            three.set()
            return False
        return True

    armed_at = time.monotonic()
    deadlines.arm(0.05, fire)
    assert three.wait(10)
    assert fired[0] - armed_at >= 0.05
    assert fired[1] - fired[0] >= 0.09 and fired[2] - fired[1] >= 0.09  # RETRY_SECONDS apart
    assert deadlines.pending() == 0


def test_a_cancelled_deadline_never_fires_and_others_still_do() -> None:
    deadlines = Deadlines()
    cancelled = threading.Event()
    later = threading.Event()
    deadlines.arm(0.05, lambda: bool(cancelled.set())).cancel()
    deadlines.arm(0.1, lambda: bool(later.set()))
    assert later.wait(10)
    assert not cancelled.is_set()


def test_cancelling_stops_the_repeats() -> None:
    deadlines = Deadlines()
    calls: list[int] = []
    first = threading.Event()

    def fire() -> bool:
        calls.append(1)
        first.set()
        return True

    armed = deadlines.arm(0.0, fire)
    assert first.wait(10)
    armed.cancel()
    count = len(calls)
    done = threading.Event()
    deadlines.arm(0.3, lambda: bool(done.set()))  # three retry periods later
    assert done.wait(10)
    assert len(calls) <= count + 1  # at most one already under way when cancel() ran


def test_cancelled_deadlines_do_not_pile_up() -> None:
    """A server default of an hour and many short statements: the heap holds what is armed."""
    deadlines = Deadlines()
    for _ in range(10_000):
        deadlines.arm(3600, lambda: False).cancel()
    kept = deadlines.arm(3600, lambda: False)
    assert deadlines.pending() == 1
    assert len(deadlines._heap) < 200
    kept.cancel()


def test_a_limit_of_centuries_does_not_stop_the_thread() -> None:
    """SET max_execution_time = 2^62: the thread never asks Condition.wait() for more than it can
    take (threading.TIMEOUT_MAX; beyond it wait() raises and the thread would die)."""
    asked: list[float] = []
    waiting = threading.Event()

    class Recording(Deadlines):
        def _wait(self, seconds: float) -> None:
            asked.append(seconds)
            waiting.set()
            super()._wait(seconds)

    deadlines = Recording()
    deadlines.arm(2.0**62, lambda: False)
    assert waiting.wait(10)
    assert asked and max(asked) <= threading.TIMEOUT_MAX
    soon = threading.Event()
    deadlines.arm(0.05, lambda: bool(soon.set()))
    assert soon.wait(10)


@pytest.mark.parametrize(
    "text, ok",
    [
        ("256MiB", True),
        ("4GiB", True),
        ("2GB", True),
        ("1.5 GB", True),
        ("25%", True),
        ("100%", True),
        ("0%", False),
        ("150%", False),
        ("4", False),
        ("lots", False),
        ("-1GB", False),
    ],
)
def test_memory_limit_values(text: str, ok: bool) -> None:
    assert (memory_size(text) is None) == ok


def test_temp_directory_size_takes_no_percentage() -> None:
    assert disk_size("10GiB") is None and disk_size("10%") is not None
    with pytest.raises(DrydockError) as info:
        ConfigField(
            "duckdb_max_temp_directory_size", "String", "10GiB", "", validator=disk_size
        ).parse("50%")
    assert info.value.code == 1105
