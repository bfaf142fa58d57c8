"""Python functions registered on DuckDB for MySQL's meaning (CONV, JSON_CONTAINS, row warnings):
one place that replaces a function of the same name, so installing twice is harmless."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import duckdb
from duckdb.func import FunctionNullHandling


def register(
    con: duckdb.DuckDBPyConnection,
    name: str,
    function: Callable[..., Any],
    parameters: Sequence[str],
    returns: str,
    side_effects: bool = False,
) -> None:
    """Register ``function`` as ``name`` on ``con`` (its cursors see it), replacing an earlier
    registration. NULL arguments reach the function (MySQL's NULL rules are its own)."""
    try:
        con.remove_function(name)
    except duckdb.Error:
        pass
    con.create_function(
        name,
        function,
        list(parameters),  # type: ignore[arg-type]
        returns,  # type: ignore[arg-type]
        null_handling=FunctionNullHandling.SPECIAL,
        side_effects=side_effects,
    )
