"""bench/timing.py: the measurement helpers every bench script prints its numbers with."""

from __future__ import annotations

import math
import os
import time

import pytest

from bench.timing import (
    Stopwatch,
    fmt_ratio,
    fmt_samples,
    goal_verdict,
    interleaved,
    latency_summary,
    median,
    median_ratio,
    p95,
    percentile,
    ratio,
    rss_bytes,
    timed,
    timed_reps,
)


def test_percentile_is_nearest_rank_over_unsorted_samples() -> None:
    samples = [float(x) for x in range(20, 0, -1)]  # 20 … 1, unsorted on purpose
    assert p95(samples) == 19.0  # ceil(0.95 * 20) = 19th smallest
    assert percentile(samples, 0.5) == 10.0
    assert percentile(samples, 1.0) == 20.0
    assert percentile([7.0], 0.01) == 7.0
    assert median([3.0, 1.0, 2.0]) == 2.0


@pytest.mark.parametrize("fraction", [0.0, -0.1, 1.5])
def test_percentile_refuses_a_fraction_outside_0_1(fraction: float) -> None:
    with pytest.raises(ValueError):
        percentile([1.0, 2.0], fraction)


def test_percentile_of_no_samples_is_an_error_not_an_index_error() -> None:
    with pytest.raises(ValueError, match="no samples"):
        p95([])


def test_ratios_are_of_medians_and_survive_a_zero_baseline() -> None:
    assert median_ratio([2.0, 4.0, 100.0], [1.0, 2.0, 3.0]) == 2.0
    assert ratio(1.0, 0.0) == math.inf
    assert fmt_ratio(1.234) == "1.23x"
    assert fmt_ratio(1.234, 7) == "  1.23x"
    assert fmt_ratio(1.0456, digits=3) == "1.046x"
    assert fmt_samples([4614.0, 12.4]) == "4,614, 12"


def test_goal_verdict_respects_the_direction_of_the_goal() -> None:
    assert (
        goal_verdict("drydock <= 1.3x DuckDB", 1.12, 1.3, higher_is_better=False)
        == "goal drydock <= 1.3x DuckDB: met (highest ratio 1.12x)"
    )
    assert goal_verdict("x", 1.4, 1.3, higher_is_better=False).endswith(
        "NOT met (highest ratio 1.40x)"
    )
    assert goal_verdict("x", 0.9, 1.0, higher_is_better=True).endswith(
        "NOT met (lowest ratio 0.90x)"
    )
    assert "x: met" in goal_verdict("x", 1.0, 1.0, higher_is_better=True)


def test_interleaved_alternates_which_side_runs_first() -> None:
    orders = [(r, list(order)) for r, order in interleaved(["a", "b"], 4)]
    assert orders == [(0, ["a", "b"]), (1, ["b", "a"]), (2, ["a", "b"]), (3, ["b", "a"])]
    assert list(interleaved(["a", "b"], 0)) == []


def test_stopwatch_and_timed_measure_the_wrapped_call() -> None:
    with Stopwatch() as sw:
        time.sleep(0.02)
    assert 0.02 <= sw.seconds < 5
    frozen = sw.seconds
    time.sleep(0.01)
    assert sw.seconds == frozen  # stopped at the end of the block
    clock = Stopwatch().start()
    assert clock.seconds <= clock.seconds  # running: grows while read
    seconds, result = timed(lambda: "r")
    assert result == "r" and seconds >= 0


def test_timed_reps_appends_one_sample_per_call_and_returns_the_last_result() -> None:
    calls: list[int] = []
    out = [9.0]
    samples, last = timed_reps(lambda: calls.append(len(calls)) or len(calls), 3, out)
    assert samples is out and len(out) == 4 and last == 3 and calls == [0, 1, 2]
    with pytest.raises(ValueError):
        timed_reps(lambda: None, 0)


def test_latency_summary_prints_milliseconds() -> None:
    text = latency_summary([0.001, 0.002, 0.010])
    assert text == "n=3 median=2.00ms p95=10.00ms p99=10.00ms worst=10.00ms"


def test_rss_bytes_of_this_process_is_positive() -> None:
    assert rss_bytes(os.getpid()) > 1 << 20


def test_every_bench_script_takes_its_helpers_from_bench_timing() -> None:
    """One copy of each helper: a script computing its own medians/percentiles drifts (the p90 and
    p95 formulas of two scripts once disagreed)."""
    from pathlib import Path

    scripts = sorted((Path(__file__).resolve().parents[2] / "bench").glob("bench_*.py"))
    assert len(scripts) >= 10
    for script in scripts:
        text = script.read_text()
        assert "from bench.timing import" in text, f"{script.name} does not use bench/timing.py"
        assert "import statistics" not in text, f"{script.name} computes its own statistics"
