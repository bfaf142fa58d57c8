"""Bounded waits for tests: wait on a state, never sleep and hope.

A test that sleeps and then asserts guesses how long the system needs; on a loaded machine the
guess is wrong in one direction (flaky failure) or the other (an assertion that nothing happened,
checked before the system even looked). ``wait_until`` polls a predicate until it holds, and fails
with ``what`` when it does not within ``timeout``. To assert that something does NOT happen, first
wait for a positive signal that the system processed the input (a dispatcher round counter, a log
line, a state written by the same step), then assert.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

POLL_SECONDS = 0.02


def wait_until(
    predicate: Callable[[], T], timeout: float, what: str, interval: float = POLL_SECONDS
) -> T:
    """The first truthy value of ``predicate()``; AssertionError naming ``what`` after ``timeout``
    s.
    The predicate is always called at least once, and once more at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"not within {timeout:g}s: {what}")
        time.sleep(min(interval, max(deadline - time.monotonic(), 0.0)))
