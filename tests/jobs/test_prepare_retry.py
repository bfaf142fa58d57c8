"""The dispatch-preparation retry schedule (engine/jobs/control/prepare_retry.py), as a table.

Issue 27: the old schedule gave up after 1+2+4+8 s; a transient outage measured in minutes must be
ridden out with capped exponential backoff inside a configurable window."""

from __future__ import annotations

from drydock.engine.jobs.control.prepare_retry import (
    RETRY_MAX_SECONDS,
    backoff,
    retry_delay,
    waited_before,
)
from drydock.engine.store.config import default_fields


def schedule(window: float) -> list[float]:
    """Every wait the window allows, first failure onwards."""
    waits, attempt = [], 1
    while (delay := retry_delay(attempt, window)) is not None:
        waits.append(delay)
        attempt += 1
    return waits


def test_the_default_window_spans_minutes_with_capped_doubling() -> None:
    [field] = [
        f for f in default_fields() if f.name == "lance_index_job_dispatch_retry_window_second"
    ]
    assert field.default == 600
    waits = schedule(600)
    assert waits[:8] == [1, 2, 4, 8, 16, 32, 60, 60]  # doubling, then the one-minute cap
    assert max(waits) == RETRY_MAX_SECONDS
    assert sum(waits) <= 600 < sum(waits) + RETRY_MAX_SECONDS  # the window, used to the end
    assert sum(waits) >= 5 * 60  # minutes, not the old ~15 s


def test_the_window_bounds_the_retries() -> None:
    assert schedule(1) == [1]
    assert schedule(0.5) == []  # no retry fits: the first failure is the last
    assert schedule(15) == [1, 2, 4, 8]
    assert schedule(16) == [1, 2, 4, 8]
    # a long window keeps probing once a minute
    assert len(schedule(3600)) == 6 + (3600 - 63) // 60
    assert all(waited_before(n) == sum(backoff(k) for k in range(1, n)) for n in range(1, 200))
