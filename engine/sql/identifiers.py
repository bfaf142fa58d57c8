"""DuckDB identifiers spelled into SQL text that drydock writes itself."""

from __future__ import annotations


def quoted(name: str) -> str:
    """``name`` as one double-quoted DuckDB identifier (an inner ``"`` doubled)."""
    return '"' + name.replace('"', '""') + '"'
