"""Real per-session transactions (MySQL 8.0 manual 15.3.1): BEGIN / START TRANSACTION / COMMIT /
ROLLBACK and ``autocommit = 0`` run as DuckDB transactions on the session's own cursor
(engine/sql/query.py QuerySession), so ``rollback()`` in a driver undoes the session's work.

- With autocommit on (the default) each statement is its own transaction, as before.
- BEGIN / START TRANSACTION opens one; if one is open it is committed first (MySQL's implicit
  commit). COMMIT / ROLLBACK end it (no-ops outside one, as in MySQL).
- With ``autocommit = 0`` the first statement opens a transaction that lasts until COMMIT or
  ROLLBACK; ``SET autocommit = 1`` then commits it (manual 15.3.1). No other SET ends a
  transaction.
- Isolation is DuckDB's snapshot isolation (README): a transaction reads the database as of its
  start and a write-write conflict with a concurrent transaction fails (1105) instead of waiting.
- DuckDB aborts a whole transaction at a failed statement, where MySQL undoes only the statement.
  drydock reports the statement's own error, rolls the DuckDB transaction back at once, and
  answers every later statement of that transaction, and its COMMIT, with 3101 (SQLSTATE 40000:
  drivers raise their "transaction rolled back" exception) until ROLLBACK — it never lets a
  client believe earlier work is still pending. (:class:`SessionTransaction`)
- Savepoints are not supported (1235).
"""

from __future__ import annotations

from typing import Any

import duckdb
from sqlglot import exp

from drydock.engine.errors import Errors
from drydock.engine.results import Result
from drydock.engine.session import SessionContext


def autocommit(ctx: SessionContext) -> bool:
    value = ctx.variables.get("autocommit") if ctx.variables is not None else True
    if isinstance(value, str):
        return value.strip().upper() not in ("0", "OFF", "FALSE")
    return bool(value) if value is not None else True


def control(expression: exp.Expr, ctx: SessionContext) -> Result:
    """BEGIN / START TRANSACTION / COMMIT / ROLLBACK."""
    query = ctx.query
    if isinstance(expression, exp.Rollback) and expression.args.get("savepoint"):
        raise Errors.NOT_SUPPORTED.error(what="ROLLBACK TO SAVEPOINT")
    if query is None:
        return Result.ok()
    if isinstance(expression, exp.Transaction):
        query.commit()
        query.begin()
    elif isinstance(expression, exp.Commit):
        query.commit()
    else:
        query.rollback()
    return Result.ok()


def before_statement(ctx: SessionContext) -> None:
    """With autocommit off, a statement runs inside the session's open transaction."""
    if ctx.query is not None and not ctx.query.in_transaction and not autocommit(ctx):
        ctx.query.begin()


def after_set(ctx: SessionContext, was_autocommit: bool) -> None:
    """A SET that switched autocommit from 0 to 1 commits the open transaction (manual 15.3.1);
    any other SET (a user variable, SET NAMES, sql_select_limit mid-transaction from a JDBC
    setMaxRows, ``SET autocommit = 1`` when it already was) leaves the transaction open."""
    if (
        ctx.query is not None
        and ctx.query.in_transaction
        and not was_autocommit
        and autocommit(ctx)
    ):
        ctx.query.commit()


def in_transaction(ctx: SessionContext) -> bool:
    return bool(ctx.query is not None and getattr(ctx.query, "in_transaction", False))


class SessionTransaction:
    """The explicit transaction of one session's DuckDB cursor (engine/sql/query.py
    QuerySession)."""

    def __init__(self, cursor: Any):
        self._cursor = cursor
        self._open = False
        self._aborted = False  # DuckDB rolled it back after a failed statement; the client not yet

    @property
    def open(self) -> bool:
        """In a transaction, as the client sees it (SERVER_STATUS_IN_TRANS)."""
        return self._open or self._aborted

    def check_usable(self) -> None:
        if self._aborted:
            raise Errors.TRANSACTION_ABORTED.error()

    def begin(self) -> None:
        self.check_usable()
        if not self._open:
            self._cursor.execute("BEGIN TRANSACTION")
            self._open = True

    def commit(self) -> None:
        if self._aborted:
            self._aborted = False
            raise Errors.TRANSACTION_ABORTED.error()
        if self._open:
            self._open = False
            self._cursor.execute("COMMIT")

    def rollback(self) -> None:
        self._aborted = False
        if self._open:
            self._open = False
            self._cursor.execute("ROLLBACK")

    def after_failure(self) -> None:
        """A statement failed inside the transaction: if DuckDB aborted the transaction, roll it
        back now and remember that the client's transaction is lost."""
        if not self._open:
            return
        try:
            self._cursor.execute("SELECT 1").fetchall()
            return  # still usable: the error happened before DuckDB ran anything
        except duckdb.Error:
            pass
        try:
            self._cursor.execute("ROLLBACK")
        except duckdb.Error:
            pass
        self._open, self._aborted = False, True
