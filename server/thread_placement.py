"""The server's Python threads share one CPU; native threads (DuckDB, Lance, Arrow) keep them all.

Why: CPython runs Python code in one thread at a time (the GIL). A statement hops between the event
loop, a worker pool thread and the job manager's writer; each hop hands the GIL to another thread,
and when that thread sleeps on another core the hand-over is a cross-core wake-up with cold caches.
Measured with ``bench/bench_index_jobs.py`` (8 connections, 2 cores): the same admissions cost
1.3 ms of server CPU each with the threads spread and 0.9 ms with them on one core, and the rate
went from ~650/s to ~1,000/s. Python threads never run Python in parallel anyway, so one core
takes nothing from them.

Native pools do run in parallel (DuckDB's workers, Lance's tokio runtime, Arrow's pools): a thread
the interpreter does not know (not in ``threading.enumerate()``) keeps every CPU the process may
use.
On Linux a new thread inherits its creator's CPU set, so a pool a Python thread starts later would
start on the one CPU too: :meth:`ThreadPlacement.refresh` runs again whenever the process's thread
list changes (a daemon thread looks once a second) and gives such threads every CPU back.

Off with ``pin_python_threads = false``; a no-op where the OS has no CPU affinity or the process
may use only one CPU.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

from drydock.engine.support.cpu_sets import PROCESS_CPUS

logger = logging.getLogger(__name__)

TASKS = Path("/proc/self/task")
CHECK_EVERY_SECONDS = 1.0


class ThreadPlacement:
    def __init__(self, cpus: set[int] | None = None, python_cpu: int | None = None):
        self.cpus = set(cpus) if cpus is not None else set(PROCESS_CPUS)
        ordered = sorted(self.cpus)
        # several servers on one host spread over the CPUs by process id
        self.python_cpu = (
            python_cpu
            if python_cpu is not None
            else (ordered[os.getpid() % len(ordered)] if ordered else -1)
        )
        self._placed: dict[int, bool] = {}  # thread id → placed as a Python thread
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def possible(self) -> bool:
        return len(self.cpus) > 1 and TASKS.is_dir() and hasattr(os, "sched_setaffinity")

    def refresh(self) -> int:
        """Place every thread whose kind changed since the last look; how many were placed."""
        python = {t.native_id for t in threading.enumerate() if t.native_id is not None}
        placed = 0
        current: dict[int, bool] = {}
        for name in os.listdir(TASKS):
            tid = int(name)
            is_python = tid in python
            current[tid] = is_python
            if self._placed.get(tid) is is_python:
                continue
            try:
                os.sched_setaffinity(tid, {self.python_cpu} if is_python else self.cpus)
                placed += 1
            except OSError:  # exited meanwhile, or not ours to move: looked at again next time
                current.pop(tid)
        self._placed = current
        return placed

    def start(self) -> None:
        if not self.possible:
            logger.info(
                "Python threads not placed on one CPU (cpus allowed: %s)", sorted(self.cpus)
            )
            return
        self.refresh()
        self._thread = threading.Thread(target=self._run, name="thread-placement", daemon=True)
        self._thread.start()
        self.refresh()  # the placement thread itself
        logger.info(
            "Python threads on CPU %d; native threads on %s", self.python_cpu, sorted(self.cpus)
        )

    def _run(self) -> None:
        seen: tuple[frozenset[str], frozenset[int]] = (frozenset(), frozenset())
        while not self._stop.wait(CHECK_EVERY_SECONDS):
            try:
                # a thread may be seen before it registers with threading: both lists are compared
                now = (
                    frozenset(os.listdir(TASKS)),
                    frozenset(
                        t.native_id for t in threading.enumerate() if t.native_id is not None
                    ),
                )
                if now != seen:
                    self.refresh()
                    seen = now
            except Exception:  # noqa: BLE001 - placement is an optimisation: never stop the server
                logger.warning("thread placement failed", exc_info=True)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
