"""How long a PENDING job whose dispatch could not be prepared keeps being retried. Pure: no I/O,
no clock.

Capped exponential backoff (1, 2, 4 … seconds, at most ``RETRY_MAX_SECONDS`` apart) for as long as
the retries fit in a window (``lance_index_job_dispatch_retry_window_second``, default ten minutes),
so a transient outage of the credentials service or object store measured in minutes is ridden
out, and a damaged record still ends NOT_COMMITTED in bounded time. Computed from the durable
attempt count alone, so a restart (or a new leader) continues the same schedule.
"""

from __future__ import annotations

RETRY_BASE_SECONDS = 1.0  # the wait after the first failure; doubled after each further one
RETRY_MAX_SECONDS = 60.0  # the cap: a long outage is probed once a minute


def backoff(attempt: int) -> float:
    """The wait after the ``attempt``-th failure (1-based), before the cap of the window."""
    return min(RETRY_BASE_SECONDS * 2 ** min(attempt - 1, 62), RETRY_MAX_SECONDS)


# failures whose wait is still below the cap (1, 2, 4 … 32 s: six)
_DOUBLING = next(k for k in range(64) if RETRY_BASE_SECONDS * 2**k >= RETRY_MAX_SECONDS)


def waited_before(attempt: int) -> float:
    """The waits after failures 1 … ``attempt`` - 1, summed in closed form (attempt counts grow
    without bound in a long window)."""
    doubling = min(attempt - 1, _DOUBLING)
    return RETRY_BASE_SECONDS * (2**doubling - 1) + RETRY_MAX_SECONDS * (attempt - 1 - doubling)


def retry_delay(attempt: int, window_seconds: float) -> float | None:
    """Seconds to wait after the ``attempt``-th failure before preparing again, or None when the
    next try would start more than ``window_seconds`` after the first failure (give up)."""
    delay = backoff(attempt)
    return None if waited_before(attempt) + delay > window_seconds else delay
