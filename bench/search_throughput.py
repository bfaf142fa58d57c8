"""Queries per second for bench/bench_search.py: N wire clients, or N pylance threads.

Wire clients (processes by default, threads on request) each hold one connection, wait at a
barrier until all are connected, then send the given SQL texts in turn (each client starting at
its own offset) for ``seconds``; qps = all completed queries / ``seconds``. The pylance side runs
the same queries from N threads in this process (pylance releases the GIL while it searches).
"""

from __future__ import annotations

import multiprocessing as mp
import threading
import time
from collections.abc import Callable
from typing import Any

import pymysql

from bench.bench_wire import HOST

JOIN_SLACK_SECONDS = 60.0


def _client(
    port: int, sqls: list[str], offset: int, seconds: float, barrier: Any
) -> tuple[int, str]:
    count, error, conn = 0, "", None
    try:
        conn = pymysql.connect(
            host=HOST,
            port=port,
            user="root",
            password="",
            autocommit=True,
            connect_timeout=10,
            read_timeout=120,
        )
    except Exception as exc:  # noqa: BLE001 - reported; the barrier must still be reached
        error = f"connect: {exc!r}"
    try:
        barrier.wait(timeout=JOIN_SLACK_SECONDS)
        if conn is not None:
            deadline = time.monotonic() + seconds
            with conn.cursor() as cur:
                while time.monotonic() < deadline:
                    cur.execute(sqls[(offset + count) % len(sqls)])
                    cur.fetchall()
                    count += 1
    except Exception as exc:  # noqa: BLE001 - a failed client is reported, not fatal
        error = error or repr(exc)
    finally:
        if conn is not None:
            conn.close()
    return count, error


def _process_client(
    port: int,
    sqls: list[str],
    offset: int,
    seconds: float,
    barrier: Any,
    counts: Any,
    errors: Any,
    index: int,
) -> None:
    count, error = _client(port, sqls, offset, seconds, barrier)
    counts[index] = count
    if error:
        errors.put(error)


def wire_qps(port: int, sqls: list[str], connections: int, seconds: float, mode: str) -> float:
    step = max(1, len(sqls) // connections)
    if mode == "process":
        ctx = mp.get_context("fork")
        barrier: Any = ctx.Barrier(connections + 1)
        counts: Any = ctx.Array("d", [0.0] * connections)
        errors: Any = ctx.Queue()
        workers: list[Any] = [
            ctx.Process(
                target=_process_client,
                args=(port, sqls, i * step, seconds, barrier, counts, errors, i),
                daemon=True,
            )
            for i in range(connections)
        ]
    else:
        barrier = threading.Barrier(connections + 1)
        results: list[tuple[int, str]] = [(0, "")] * connections

        def run(i: int) -> None:
            results[i] = _client(port, sqls, i * step, seconds, barrier)

        workers = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(connections)]
    for w in workers:
        w.start()
    barrier.wait(timeout=JOIN_SLACK_SECONDS)
    for w in workers:
        w.join(timeout=seconds + JOIN_SLACK_SECONDS)
    if mode == "process":
        total = sum(int(c) for c in counts[:])
        problems = []
        while not errors.empty():
            problems.append(errors.get_nowait())
    else:
        total = sum(c for c, _ in results)
        problems = [e for _, e in results if e]
    if problems:
        raise RuntimeError(f"throughput clients failed: {problems[:2]}")
    return total / seconds


def pylance_qps(local: Callable[[int], object], n: int, threads: int, seconds: float) -> float:
    counts = [0] * threads
    barrier = threading.Barrier(threads + 1)

    def run(t: int) -> None:
        barrier.wait(timeout=JOIN_SLACK_SECONDS)
        deadline, i = time.monotonic() + seconds, t * max(1, n // threads)
        while time.monotonic() < deadline:
            local((i + counts[t]) % n)
            counts[t] += 1

    workers = [threading.Thread(target=run, args=(t,), daemon=True) for t in range(threads)]
    for w in workers:
        w.start()
    barrier.wait(timeout=JOIN_SLACK_SECONDS)
    for w in workers:
        w.join(timeout=seconds + JOIN_SLACK_SECONDS)
    return sum(counts) / seconds
