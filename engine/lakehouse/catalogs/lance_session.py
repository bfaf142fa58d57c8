"""One Lance session for every Lance dataset the server opens: the caches of opened indexes and
file metadata, with a bounded capacity (the frontend config ``lance_cache_size``).

Without it each opened dataset version gets pylance's default caches (gigabytes), so a server that
searches a large table keeps memory in proportion to the table's indexes (measured: +501 MB over
a 1M × 128 search benchmark). Shared and bounded, the least recently used entries are evicted.
"""

from __future__ import annotations

import re
import threading
from typing import Any

DEFAULT_BYTES = 1 << 30
_INDEX_SHARE = 0.75  # the rest is for file metadata
_UNITS = {
    "b": 1, "bytes": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
    "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}  # fmt: skip
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*", re.IGNORECASE)

_lock = threading.Lock()
_capacity = DEFAULT_BYTES
_session: Any = None


def size_bytes(text: str) -> int:
    """``512MiB`` / ``1GiB`` / ``2GB`` → bytes (the config validator checked the form)."""
    match = _SIZE.fullmatch(text)
    if match is None or match.group(2).lower() not in _UNITS:
        raise ValueError(f"not a size: {text!r}")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def configure(capacity_bytes: int) -> None:
    """Set the capacity (at startup, before any dataset is opened)."""
    global _capacity, _session
    with _lock:
        _capacity, _session = capacity_bytes, None


def session() -> Any:
    """The shared ``lance.Session`` (made on first use)."""
    global _session
    with _lock:
        if _session is None:
            import lance

            index = int(_capacity * _INDEX_SHARE)
            _session = lance.Session(
                index_cache_size_bytes=index, metadata_cache_size_bytes=_capacity - index
            )
        return _session
