"""Real per-session transactions (MySQL 8.0 manual 15.3.1): BEGIN / START TRANSACTION / COMMIT /
ROLLBACK and ``autocommit = 0`` run as DuckDB transactions on the session's own cursor
(engine/query.py QuerySession), so ``rollback()`` in a driver undoes the session's work.

- With autocommit on (the default) each statement is its own transaction, as before.
- BEGIN / START TRANSACTION opens one; if one is open it is committed first (MySQL's implicit
  commit). COMMIT / ROLLBACK end it (no-ops outside one, as in MySQL).
- With ``autocommit = 0`` the first statement opens a transaction that lasts until COMMIT or
  ROLLBACK; ``SET autocommit = 1`` commits an open one (manual 15.3.1).
- Isolation is DuckDB's snapshot isolation (README): a transaction reads the database as of its
  start and a write-write conflict with a concurrent transaction fails (1105) instead of waiting.
  DuckDB aborts a transaction at the first failed statement; later statements fail until ROLLBACK.
- Savepoints are not supported (1235).
"""

from __future__ import annotations

from sqlglot import exp

from engine.errors import Errors
from engine.results import Result
from engine.session import SessionContext

CONTROL = (exp.Transaction, exp.Commit, exp.Rollback)


def autocommit(ctx: SessionContext) -> bool:
    value = ctx.variables.get("autocommit") if ctx.variables is not None else True
    if isinstance(value, str):
        return value.strip().upper() not in ("0", "OFF", "FALSE")
    return bool(value) if value is not None else True


def control(expression: exp.Expression, ctx: SessionContext) -> Result:
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


def after_set(ctx: SessionContext) -> None:
    """``SET autocommit = 1`` commits the open transaction."""
    if ctx.query is not None and ctx.query.in_transaction and autocommit(ctx):
        ctx.query.commit()


def in_transaction(ctx: SessionContext) -> bool:
    return bool(ctx.query is not None and getattr(ctx.query, "in_transaction", False))
