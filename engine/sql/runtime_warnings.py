"""Warnings a statement raises row by row while DuckDB runs it, as MySQL does (1365 Division by
0, 1292 Truncated incorrect CHAR(n) value): whether a row raises one is known only when DuckDB
computes it.

A rewrite puts ``<condition> AND drydock_warning('<token>', code, message)`` where MySQL would
warn; the function (a Python scalar function, volatile so DuckDB never folds it away) records
the warning under the statement's token and returns true. The statement's :class:`Collector`
opened the token and takes its warnings when the statement is done. A token is random and only
an opened one records, so SQL that calls the function itself cannot reach another statement's
warnings nor grow the registry. MySQL keeps at most ``max_error_count`` (1024) of them.
"""

from __future__ import annotations

import secrets
import threading

import duckdb
from duckdb.func import FunctionNullHandling
from sqlglot import exp

from drydock.engine.errors import ErrorSpec
from drydock.engine.results import Diagnostic

FUNCTION = "drydock_warning"
MAX_KEPT = 1024  # MySQL's max_error_count default

_open: dict[str, list[Diagnostic]] = {}
_lock = threading.Lock()


def _record(token: str | None, code: int | None, message: str | None) -> bool:
    with _lock:
        kept = _open.get(token or "")
        if kept is not None and len(kept) < MAX_KEPT and code is not None:
            kept.append(Diagnostic("Warning", code, message or ""))
    return True


def install(con: duckdb.DuckDBPyConnection) -> None:
    """Register the recording function on ``con`` (its cursors see it). Idempotent."""
    try:
        con.remove_function(FUNCTION)
    except duckdb.Error:
        pass
    con.create_function(
        FUNCTION,
        _record,
        ["VARCHAR", "INTEGER", "VARCHAR"],  # type: ignore[list-item]
        "BOOLEAN",  # type: ignore[arg-type]
        null_handling=FunctionNullHandling.SPECIAL,
        side_effects=True,
    )


class Collector:
    """One statement's runtime warnings: :meth:`warn_if` marks where, :meth:`collect` takes
    them (and closes the token; call it in a ``finally``)."""

    def __init__(self) -> None:
        self.token = secrets.token_hex(16)
        with _lock:
            _open[self.token] = []

    def warn_if(self, condition: exp.Expr, spec: ErrorSpec, message: exp.Expr) -> exp.Expr:
        """``condition AND <record spec's warning with text message>``: true where the warning
        was recorded."""
        record = exp.Anonymous(
            this=FUNCTION,
            expressions=[
                exp.Literal.string(self.token),
                exp.Literal.number(spec.code),
                message,
            ],
        )
        return exp.And(this=exp.Paren(this=condition), expression=record)

    def collect(self) -> list[Diagnostic]:
        with _lock:
            return _open.pop(self.token, [])
