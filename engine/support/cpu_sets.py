"""The CPUs this process may use, read once at import (before server/thread_placement.py puts the
Python threads on one of them): what native pools and child processes get back.

On Linux a child process inherits the CPU set of the thread that starts it, and the server's
threads that start index workers are Python threads (on one CPU): a worker sets its own CPU set
from ``DRYDOCK_WORKER_CPUS`` first thing, or an index build would run on one core.
"""

from __future__ import annotations

import os

ENV_WORKER_CPUS = "DRYDOCK_WORKER_CPUS"


def _allowed() -> frozenset[int]:
    try:
        return frozenset(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no CPU affinity on this OS
        return frozenset()


PROCESS_CPUS: frozenset[int] = _allowed()


def encode(cpus: frozenset[int]) -> str:
    return ",".join(str(c) for c in sorted(cpus))


def restore_from_environment(value: str | None) -> None:
    """In a child process: take back the CPUs the server may use (``encode``'s text); a value that
    is missing or not a CPU list changes nothing."""
    if not value or not hasattr(os, "sched_setaffinity"):
        return
    try:
        os.sched_setaffinity(0, {int(c) for c in value.split(",")})
    except (ValueError, OSError):  # not a list, or CPUs this process may not use: keep what it has
        pass
