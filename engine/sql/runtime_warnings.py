"""Warnings a statement raises row by row while DuckDB runs it, as MySQL does (1365 Division by
0, 1292 Truncated incorrect CHAR(n) value): whether a row raises one is known only when DuckDB
computes it.

A rewrite puts ``<condition> AND drydock_warning('<token>', code, message)`` where MySQL would
warn; the function (a Python scalar function, volatile so DuckDB never folds it away) records
the warning under the statement's token and returns true. The statement's :class:`Collector`
opened the token and takes its warnings when the statement is done. A token is random and only
an opened one records, so SQL that calls the function itself cannot reach another statement's
warnings nor grow the registry. MySQL keeps at most ``max_error_count`` (1024) of them.

Checks that run parts of a statement in queries of their own before the statement runs
(engine/sql/enforcement.py evaluates an INSERT's or UPDATE's new values) run them
:func:`muted`: the statement itself raises each row's warning once, as MySQL does.
"""

from __future__ import annotations

import contextlib
import contextvars
import secrets
import threading
from collections.abc import Iterator

import duckdb
from sqlglot import exp

from drydock.engine.errors import ErrorSpec
from drydock.engine.results import Diagnostic
from drydock.engine.sql.python_functions import register

FUNCTION = "drydock_warning"
MAX_KEPT = 1024  # MySQL's max_error_count default

_open: dict[str, list[Diagnostic]] = {}
_muted: dict[str, int] = {}  # token → how many muted() blocks hold it
_lock = threading.Lock()
# the statement being run's collector, for rewrites that run after the statement's own ones
# (engine/sql/time_contexts.py); a closed collector records nothing
_current: contextvars.ContextVar[Collector | None] = contextvars.ContextVar(
    "drydock_warnings", default=None
)


def _record(token: str | None, code: int | None, message: str | None) -> bool:
    with _lock:
        kept = None if (token or "") in _muted else _open.get(token or "")
        if kept is not None and len(kept) < MAX_KEPT and code is not None:
            kept.append(Diagnostic("Warning", code, message or ""))
    return True


def install(con: duckdb.DuckDBPyConnection) -> None:
    """Register the recording function on ``con`` (its cursors see it). Idempotent."""
    register(con, FUNCTION, _record, ["VARCHAR", "INTEGER", "VARCHAR"], "BOOLEAN", True)


def tokens_in(expression: exp.Expr) -> set[str]:
    """The tokens of the warnings ``expression`` records."""
    return {
        call.expressions[0].name
        for call in expression.find_all(exp.Anonymous)
        if str(call.name).lower() == FUNCTION and call.expressions
    }


def without_warnings(expression: exp.Expr) -> exp.Expr:
    """A copy of ``expression`` that records nothing (each recording call is TRUE, as it
    returns): for a query that recomputes the statement's values only to count them."""

    def silence(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Anonymous) and str(node.name).lower() == FUNCTION:
            return exp.true()
        return node

    return expression.copy().transform(silence, copy=False)


@contextlib.contextmanager
def muted(expression: exp.Expr) -> Iterator[None]:
    """Queries run inside the block record none of ``expression``'s warnings (DuckDB may call
    the function from any thread: muting is by token, not by thread)."""
    tokens = tokens_in(expression)
    with _lock:
        for token in tokens:
            _muted[token] = _muted.get(token, 0) + 1
    try:
        yield
    finally:
        with _lock:
            for token in tokens:
                _muted[token] -= 1
                if not _muted[token]:
                    del _muted[token]


class Collector:
    """One statement's runtime warnings: :meth:`warn_if` marks where, :meth:`collect` takes
    them (and closes the token; call it in a ``finally``)."""

    def __init__(self) -> None:
        self.token = secrets.token_hex(16)
        with _lock:
            _open[self.token] = []
        _current.set(self)

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

    def take(self) -> list[Diagnostic]:
        """The warnings recorded since the last take, the token still open (a streamed result's
        later batches record more)."""
        with _lock:
            kept = _open.get(self.token)
            if not kept:
                return []
            _open[self.token] = []
            return kept

    def collect(self) -> list[Diagnostic]:
        with _lock:
            return _open.pop(self.token, [])


def current() -> Collector | None:
    """The collector of the statement this context runs (the last one opened in it)."""
    return _current.get()
