"""Stall and memory under hostile statements: does one client's huge statement or pathological
LIKE pattern delay everyone else, and is the memory it took returned?

Baseline: the same probe (``SELECT 1`` on a second connection) against the same drydock process
while it is idle. Prints the probe latency (median / p95 / p99 / worst) idle and under each load,
the ratio worst-under-load / idle median, and the server's RSS before, at the peak of, and after a
maximal statement (goal: SELECT 1 within 100 ms under load; RSS back within 20% afterwards).

    python bench/bench_statement_stall.py [--tokens 200000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

import pymysql

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.bench_wire import HOST, ROOT, drydock_server  # noqa: E402
from bench.timing import Stopwatch, latency_summary, median, ratio, rss_bytes  # noqa: E402

MAX_PROBES = 5_000


def probe(port: int, until: threading.Event, seconds: float) -> list[float]:
    latencies: list[float] = []
    deadline = time.monotonic() + seconds
    with (
        pymysql.connect(host=HOST, port=port, user="root", autocommit=True) as conn,
        conn.cursor() as cur,
    ):
        while not until.is_set() and time.monotonic() < deadline and len(latencies) < MAX_PROBES:
            with Stopwatch() as round_trip:
                cur.execute("SELECT 1")
                cur.fetchall()
            latencies.append(round_trip.seconds)
            time.sleep(0.005)
    return latencies


def under_load(port: int, sql: str) -> tuple[list[float], float]:
    done = threading.Event()
    took = [0.0]

    def hostile() -> None:
        clock = Stopwatch().start()
        try:
            with (
                pymysql.connect(
                    host=HOST, port=port, user="root", autocommit=True, read_timeout=600
                ) as conn,
                conn.cursor() as cur,
            ):
                cur.execute(sql)
                cur.fetchall()
        except pymysql.err.MySQLError:
            pass
        finally:
            took[0] = clock.seconds
            done.set()

    thread = threading.Thread(target=hostile)
    thread.start()
    time.sleep(0.05)
    latencies = probe(port, done, 600)
    thread.join(timeout=600)
    return latencies, took[0]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokens", type=int, default=200_000, help="items of the maximal IN list")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = drydock_server(Path(tmp), ROOT).start()
        try:
            assert server.proc is not None
            pid, port = server.proc.pid, server.port
            idle = probe(port, threading.Event(), 2.0)
            idle_median = median(idle)
            print(f"idle (baseline)        {latency_summary(idle)}")
            loads = {
                "maximal statement": "SELECT 1 IN (" + ",".join(["1"] * (args.tokens // 2)) + ")",
                "LIKE of 10k wildcards": "SHOW DATABASES LIKE '" + "%_" * 5000 + "x'",
                "over max_statement_bytes": "SELECT '" + "x" * (5 * 2**20) + "'",
            }
            rss_before = rss_bytes(pid)
            peak = [rss_before]
            watching = threading.Event()

            def watch() -> None:
                while not watching.is_set():
                    peak[0] = max(peak[0], rss_bytes(pid))
                    time.sleep(0.02)

            watcher = threading.Thread(target=watch)
            watcher.start()
            for name, sql in loads.items():
                latencies, took = under_load(port, sql)
                worst = max(latencies) if latencies else 0.0
                print(
                    f"{name:<22} {latency_summary(latencies) if latencies else 'n=0'} "
                    f"(statement took {took:.2f}s) worst/idle-median ratio "
                    f"{ratio(worst, idle_median):.1f}x"
                )
            watching.set()
            watcher.join()
            time.sleep(6.0)  # DuckDB's allocator returns freed memory in the background
            rss_after = rss_bytes(pid)
            print(
                f"RSS before {rss_before / 2**20:.0f} MiB, peak {peak[0] / 2**20:.0f} MiB, "
                f"after {rss_after / 2**20:.0f} MiB (after/before ratio "
                f"{ratio(rss_after, rss_before):.2f})"
            )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
