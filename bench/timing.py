"""Measurement helpers shared by every bench script: samples, percentiles, ratios, interleaved
rounds, a stopwatch, and a process's resident memory.

Each script used to carry its own copies; these are the one version. Times are in seconds unless a
name says otherwise; a ratio is always ``drydock / baseline`` of the medians, printed as ``1.23x``.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Self, TypeVar

T = TypeVar("T")


def median(samples: Sequence[float]) -> float:
    return statistics.median(samples)


def percentile(samples: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile (``fraction`` in (0, 1]): a value that was measured, never an
    interpolation between two, so the p95 of 20 samples is the 19th smallest."""
    if not samples:
        raise ValueError("percentile of no samples")
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must be in (0, 1], got {fraction}")
    ordered = sorted(samples)
    return ordered[max(math.ceil(fraction * len(ordered)), 1) - 1]


def p95(samples: Sequence[float]) -> float:
    return percentile(samples, 0.95)


def ratio(value: float, baseline: float) -> float:
    """value / baseline; infinity when the baseline is zero (a bench never fails on a ratio)."""
    return value / baseline if baseline else math.inf


def median_ratio(samples: Sequence[float], baseline: Sequence[float]) -> float:
    return ratio(median(samples), median(baseline))


def fmt_ratio(value: float, width: int = 0, digits: int = 2) -> str:
    """``1.23x``, right-aligned in ``width`` characters (the ``x`` included)."""
    return f"{value:.{digits}f}x".rjust(width)


def goal_verdict(goal: str, worst: float, target: float, *, higher_is_better: bool) -> str:
    """One line: whether the worst ratio of a run meets its goal, e.g.
    ``goal drydock <= 1.3x DuckDB: met (highest ratio 1.12x)`` (``goal`` is the text after
    "goal")."""
    met = worst >= target if higher_is_better else worst <= target
    which = "lowest" if higher_is_better else "highest"
    return f"goal {goal}: {'met' if met else 'NOT met'} ({which} ratio {fmt_ratio(worst)})"


def fmt_samples(samples: Sequence[float], spec: str = ",.0f") -> str:
    """Every sample of a cell, for the progress lines: ``4,614, 4,702, 4,588``."""
    return ", ".join(format(x, spec) for x in samples)


def latency_summary(samples: Sequence[float]) -> str:
    """``n=… median=…ms p95=…ms p99=…ms worst=…ms`` for latencies given in seconds."""
    ms = [x * 1000 for x in samples]
    return (
        f"n={len(ms)} median={median(ms):.2f}ms p95={p95(ms):.2f}ms "
        f"p99={percentile(ms, 0.99):.2f}ms worst={max(ms):.2f}ms"
    )


@dataclass
class Stopwatch:
    """``with Stopwatch() as sw: …`` then ``sw.seconds``; or ``clock = Stopwatch().start()`` and
    read
    ``clock.seconds`` at each stage boundary (perf_counter: monotonic, the finest clock)."""

    started: float = 0.0
    stopped: float | None = None

    def start(self) -> Self:
        self.started, self.stopped = time.perf_counter(), None
        return self

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stopped = time.perf_counter()

    @property
    def seconds(self) -> float:
        end = time.perf_counter() if self.stopped is None else self.stopped
        return end - self.started


def timed(fn: Callable[[], T]) -> tuple[float, T]:
    """(seconds, result) of one call."""
    with Stopwatch() as sw:
        result = fn()
    return sw.seconds, result


def timed_reps(
    fn: Callable[[], T], reps: int, out: list[float] | None = None
) -> tuple[list[float], T]:
    """Call ``fn`` ``reps`` (>= 1) times; the samples (appended to ``out`` when given) and the last
    result."""
    if reps < 1:
        raise ValueError(f"reps must be >= 1, got {reps}")
    samples = out if out is not None else []
    for _ in range(reps):
        seconds, result = timed(fn)
        samples.append(seconds)
    return samples, result


def interleaved(sides: Sequence[T], rounds: int) -> Iterator[tuple[int, Sequence[T]]]:
    """(round number, sides in this round's order): A B, B A, A B, … so that neither side always
    runs first (warm caches, a neighbour's load) — every ratio here is measured this way."""
    for r in range(rounds):
        yield r, (sides if r % 2 == 0 else sides[::-1])


def rss_bytes(pid: int) -> int:
    """Resident set size of ``pid`` (Linux /proc), 0 when the kernel does not say."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0
