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
  drydock reports the statement's own error and rebuilds the transaction as it was before the
  statement, by the replay ROLLBACK TO SAVEPOINT uses (below), so the transaction goes on as in
  MySQL. When a replay could not rebuild the same state (another session committed a write since
  the transaction began, an earlier statement called a volatile function, …) the transaction is
  lost instead: every later statement of it, and its COMMIT, get 3101 (SQLSTATE 40000: drivers
  raise their "transaction rolled back" exception) until ROLLBACK — no client is ever let believe
  lost work is pending. (:class:`SessionTransaction`)
- SAVEPOINT / ROLLBACK TO SAVEPOINT / RELEASE SAVEPOINT: a replay of the transaction's statement
  log (engine/sql/savepoints.py, where the design and its measurements are). ROLLBACK TO also
  rebuilds a transaction a failed statement aborted, so ``SAVEPOINT s; INSERT … (1062);
  ROLLBACK TO SAVEPOINT s`` (Django's ``get_or_create``) keeps the work before ``s``. When a
  replay could not rebuild the same state the whole transaction is rolled back and ROLLBACK TO
  answers 1213 (SQLSTATE 40001: retry the transaction); later statements then run outside a
  transaction (autocommit on), as after MySQL's deadlock rollback.
- DDL is not committed implicitly (it runs in the DuckDB transaction), but as in MySQL, where
  DDL's implicit commit ends the savepoints, a DDL statement clears them.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any, NoReturn

import duckdb
from sqlglot import exp

from drydock.engine.errors import Errors
from drydock.engine.results import Result
from drydock.engine.session import SessionContext
from drydock.engine.sql.savepoints import (
    MAX_LOG_BYTES,
    RecordingCursor,
    TransactionLog,
    WriteClock,
    replay,
    sequence_state,
    set_sequence,
    volatile_call,
)
from drydock.grammar.sql import ReleaseSavepoint, Savepoint

# Statements that only read (not logged for a replay), and those that clear savepoints (MySQL's
# DDL commits implicitly, which ends them). SELECT nextval(…) draws from a sequence: logged.
READS = (exp.Select, exp.Union, exp.Intersect, exp.Except, exp.Values, exp.Subquery, exp.Describe)
DDL = (exp.Create, exp.Drop, exp.Alter, exp.TruncateTable, exp.Command)
SEQUENCE_FUNCTIONS = ("nextval", "setval", "setseed")
TRANSACTION_CONTROL = (exp.Transaction, exp.Commit, exp.Rollback, Savepoint, ReleaseSavepoint)


def is_read(expression: exp.Expr) -> bool:
    """Reads only: commits nothing to the internal database (engine/sql/savepoints.py)."""
    return isinstance(expression, READS) and volatile_call(expression) not in SEQUENCE_FUNCTIONS


def autocommit(ctx: SessionContext) -> bool:
    value = ctx.variables.get("autocommit") if ctx.variables is not None else True
    if isinstance(value, str):
        return value.strip().upper() not in ("0", "OFF", "FALSE")
    return bool(value) if value is not None else True


def control(expression: exp.Expr, ctx: SessionContext) -> Result:
    """BEGIN / START TRANSACTION / COMMIT / ROLLBACK / SAVEPOINT / ROLLBACK TO / RELEASE."""
    query = ctx.query
    if isinstance(expression, (Savepoint, ReleaseSavepoint)) or (
        isinstance(expression, exp.Rollback) and expression.args.get("savepoint")
    ):
        return _savepoint(expression, ctx)
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


def _savepoint(expression: exp.Expr, ctx: SessionContext) -> Result:
    query = ctx.query
    node = expression.args["savepoint"] if isinstance(expression, exp.Rollback) else expression.this
    name = node.name
    if isinstance(expression, Savepoint):
        before_statement(ctx)  # autocommit off: SAVEPOINT is the transaction's first statement
        if query is not None:
            query.savepoint(name)
    elif query is None:
        raise Errors.SAVEPOINT_DOES_NOT_EXIST.error(name=name)
    elif isinstance(expression, ReleaseSavepoint):
        query.release_savepoint(name)
    else:
        query.rollback_to_savepoint(name)
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
    QuerySession), its statement log and savepoints (engine/sql/savepoints.py)."""

    def __init__(self, cursor: RecordingCursor, clock: WriteClock, log_limit: int = MAX_LOG_BYTES):
        self._recorder = cursor
        self._cursor = cursor.raw  # transaction control itself is never logged
        self._clock = clock
        self._log_limit = log_limit
        self._log: TransactionLog | None = None
        self._open = False
        self._aborted = False  # DuckDB rolled it back after a failed statement; the client not yet
        self._schema: str | None = None  # the session's schema as the last statement began

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
            version = self._clock.version  # before BEGIN: a commit in between only refuses more
            self._cursor.execute("BEGIN TRANSACTION")
            self._open = True
            self._log = TransactionLog(version, self._log_limit)

    def commit(self) -> None:
        log, self._log = self._log, None
        if self._aborted:
            self._aborted = False
            raise Errors.TRANSACTION_ABORTED.error()
        if self._open:
            self._open = False
            with self._clock.committing() if log is not None and log.wrote else nullcontext():
                self._cursor.execute("COMMIT")

    def rollback(self) -> None:
        self._aborted = False
        self._log = None
        if self._open:
            self._open = False
            self._cursor.execute("ROLLBACK")

    # -- the statement log (engine/sql/query.py QuerySession.run)
    def statement_started(self, schema: str | None, expression: exp.Expr) -> None:
        """Record what a write of the transaction executes (a read is neither recorded nor its
        rows hashed). ``schema``: the session's current one, which the statement starts on."""
        self._schema = schema
        if self._open and not is_read(expression):
            self._recorder.start(schema)

    def statement_succeeded(self, expression: exp.Expr) -> None:
        """Log what the statement executed, unless it only read. A DDL statement clears the
        savepoints, as MySQL's implicit commit does."""
        record = self._recorder.finish()
        if record is None or self._log is None:
            return  # outside a transaction, or a read: nothing to rebuild
        volatile = volatile_call(expression)
        if volatile and not record.unreplayable:
            record.unreplayable = (
                f"a statement called {volatile}(), which a replay would not repeat"
            )
        self._log.append(record)
        if isinstance(expression, DDL):
            self._log.savepoints.clear()

    def statement_failed(self) -> None:
        """When DuckDB's transaction survived the failure, what the statement did execute is part
        of it: logged as it ran, so a replay rebuilds it too."""
        record = self._recorder.finish()
        survived = self.after_failure()
        if survived and self._log is not None and record is not None and record.executed:
            self._log.append(record)

    def after_failure(self) -> bool:
        """A statement failed inside the transaction. If DuckDB aborted the transaction, undo only
        the statement, as MySQL does: rebuild the transaction from its log as it was before the
        statement (engine/sql/savepoints.py). When that cannot be done faithfully, the client's
        transaction is lost (3101 until ROLLBACK, or a ROLLBACK TO SAVEPOINT that rebuilds it).
        True when DuckDB's transaction survived the failure as it was."""
        if not self._open:
            return False
        try:
            self._cursor.execute("SELECT 1").fetchall()
            return True  # still usable: the error happened before DuckDB ran anything
        except duckdb.Error:
            pass
        if self._log is not None and not self._rebuild(self._log.length, self._schema):
            return False  # rebuilt without the statement: the transaction goes on
        self._end_quietly()
        self._aborted = True
        return False

    # -- savepoints (MySQL 8.0 manual 15.3.4)
    def savepoint(self, name: str) -> None:
        """Outside a transaction (autocommit on) it is accepted and ends at once, as in MySQL."""
        self.check_usable()
        if self._log is not None:
            self._log.mark(name)

    def release_savepoint(self, name: str) -> None:
        self.check_usable()
        if self._log is None:
            raise Errors.SAVEPOINT_DOES_NOT_EXIST.error(name=name)
        self._log.release(name)

    def rollback_to_savepoint(self, name: str, schema: str | None) -> None:
        """Roll DuckDB's transaction back, begin again and replay the log up to the savepoint
        (also after a failed statement aborted it); refused — the whole transaction rolled back,
        1213 — when the replay could not rebuild the same state. ``schema``: the session's."""
        log = self._log
        if log is None:
            raise Errors.SAVEPOINT_DOES_NOT_EXIST.error(name=name)
        position = log.rollback_to(name)
        if self._open and log.length == position:
            return  # nothing since the savepoint changed anything: the snapshot stays too
        reason = self._rebuild(position, schema)
        if reason:
            self._refuse(name, reason)

    def _rebuild(self, position: int, schema: str | None) -> str:
        """Roll DuckDB's transaction back, begin again and replay the log's first ``position``
        statements. Returns why that could not rebuild the same state ("" when it did; then the
        log ends at ``position``); on failure nothing is left open."""
        log = self._log
        assert log is not None
        reason = log.unreplayable(position) or self._committed_since(log)
        if reason:
            return reason
        self._end_quietly()  # sequences are not transactional: read after the rollback alike
        drawn = {s: sequence_state(self._cursor, s) for s in log.sequences(position)}
        try:
            self._cursor.execute("BEGIN TRANSACTION")
            self._open = True
            reason = self._committed_since(log) or replay(
                self._cursor, log.statements[:position], schema
            )
        except duckdb.Error as exc:
            reason = f"the transaction could not begin again: {str(exc).splitlines()[0][:200]}"
        if reason:
            self._end_quietly()
        _move_forward(self._cursor, drawn)
        if not reason:
            log.truncate(position)
        return reason

    def _committed_since(self, log: TransactionLog) -> str:
        if self._clock.unchanged_since(log.version):
            return ""
        return "another session committed a write since the transaction began"

    def _end_quietly(self) -> None:
        if self._open:
            try:
                self._cursor.execute("ROLLBACK")
            except duckdb.Error:
                pass
        self._open = self._aborted = False

    def _refuse(self, name: str, reason: str) -> NoReturn:
        self._end_quietly()
        self._log = None
        raise Errors.SAVEPOINT_REPLAY_REFUSED.error(name=name, reason=reason)


def _move_forward(cursor: Any, drawn: dict[str, tuple[Any, Any]]) -> None:
    """Each rewound sequence back to the highest value drawn before the rollback (or since, by
    another session): no value is handed out twice."""
    for sequence, before in drawn.items():
        try:
            now = sequence_state(cursor, sequence)
            highest = max((before, now), key=lambda s: -1 if s[0] is None else int(s[0]))
            if highest[0] is not None:
                set_sequence(cursor, sequence, highest)
        except duckdb.Error:
            pass  # created in the transaction and gone with it: nothing was handed out
