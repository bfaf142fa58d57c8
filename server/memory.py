"""Keeping one huge statement from stalling or bloating the whole server (Python's own limits).

- A parse of a very large statement allocates millions of tree nodes; CPython's cyclic GC would
  rescan all of them again and again while the tree grows, holding the GIL for hundreds of
  milliseconds each time and stalling every other connection. While a large statement is parsed
  the collector is paused (a counter, so concurrent large parses nest).
- Afterwards the tree (full of parent/child cycles) is collected and the freed heap returned to
  the OS (glibc ``malloc_trim``), so the memory one statement took does not stay with the process.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

LARGE_STATEMENT_CHARS = 64 * 1024

_lock = threading.Lock()
_paused = 0


@contextmanager
def gc_paused(large: bool) -> Iterator[None]:
    global _paused
    if not large:
        yield
        return
    with _lock:
        _paused += 1
        gc.disable()
    try:
        yield
    finally:
        with _lock:
            _paused -= 1
            if _paused == 0:
                gc.enable()


def _load_trim() -> object | None:
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        return getattr(ctypes.CDLL(name), "malloc_trim", None)
    except OSError:
        return None


_malloc_trim = _load_trim()


def release_after_large_statement() -> None:
    """Collect the statement's garbage and give the freed heap back to the OS."""
    gc.collect()
    if _malloc_trim is not None:
        _malloc_trim(0)  # type: ignore[operator]
