"""SAVEPOINT / ROLLBACK TO SAVEPOINT / RELEASE SAVEPOINT (MySQL 8.0 manual 15.3.4) on DuckDB, which
has neither savepoints nor statement-level rollback: a failed statement aborts the whole DuckDB
transaction (engine/sql/transactions.py).

Measured on DuckDB 2.0.1, and why the design is a replay log, not an undo log:

- DuckDB parses no SAVEPOINT and, after any failed statement, refuses everything but ROLLBACK.
  An undo log (inverse statements) cannot recover from that; Django's ``get_or_create`` is
  exactly ``SAVEPOINT s; INSERT … (1062); ROLLBACK TO SAVEPOINT s``.
- So each session keeps a **statement log** of its explicit transaction (:class:`TransactionLog`):
  every DuckDB text and parameters a successful statement executed on the session's cursor
  (:class:`RecordingCursor`), in order, with a digest of the rows each returned (an INSERT's or
  UPDATE's count, the ids an AUTO_INCREMENT INSERT's RETURNING gave). Pure reads are not kept.
  ``SAVEPOINT s`` marks a log position; ``ROLLBACK TO s`` rolls the DuckDB transaction back,
  begins again and replays the log up to that position (:func:`replay`).
- A replay is right only if it rebuilds the same state, so ROLLBACK TO refuses — rolls the whole
  transaction back and answers 1213 / SQLSTATE 40001, which drivers treat as "transaction rolled
  back, retry" (``Errors.SAVEPOINT_REPLAY_REFUSED``) — when: another session committed a write to
  the internal database since the transaction began (:class:`WriteClock`: the new snapshot would
  differ; each frontend has its own DuckDB file, so an in-process count sees every writer); a
  statement before the savepoint called a function whose value a replay would not repeat
  (:data:`VOLATILE_FUNCTIONS`: DuckDB's VOLATILE and CONSISTENT_WITHIN_QUERY functions — now() is
  the transaction's start — and MySQL's spellings of them), or read an external (Lance) table; a
  replayed statement returns other rows or counts than it first did; or the log outgrew
  :data:`MAX_LOG_BYTES`. Reads are neither logged nor hashed, so a transaction's SELECTs cost
  nothing more than before.
- Sequences (AUTO_INCREMENT columns, engine/sql/mysql_ddl.py) are not transactional in DuckDB:
  a rolled-back ``nextval`` stays drawn, so a plain replay would give new ids and the client's
  LAST_INSERT_ID would lie. The log keeps, per statement, the value of each sequence it may draw
  from just before it ran; the replay sets each back to that value (``setval``) before replaying
  the statement, so it draws the same ids even past gaps (a failed INSERT's burnt id, another
  session's draws) — the ids are part of the compared digests, so a value drawn by another
  session between that reading and the statement shows as a difference and refuses. Then each
  sequence moves forward to the highest value drawn before the rollback, so no value handed out
  is handed out again (MySQL's InnoDB leaves the same gap).
  Between the rewind and that move, another session inserting into the same table could draw a
  value the replay then draws too; its statement then fails with a duplicate key, never silently.
- A column DEFAULT CURRENT_TIMESTAMP filled by an INSERT gets the replay's time: the log cannot
  see a default's function (documented limitation).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import duckdb
from sqlglot import exp

from drydock.engine.errors import Errors
from drydock.engine.session import INTERNAL
from drydock.engine.sql.identifiers import quoted

# Bound of one transaction's statement log (SQL text, parameters and EXECUTED_OVERHEAD a call):
# four statements of the default max_statement_bytes (4 MiB) per session. Past it SAVEPOINT still
# works, but ROLLBACK TO a savepoint set after the bound was crossed answers
# SAVEPOINT_REPLAY_REFUSED and rolls back.
MAX_LOG_BYTES = 4 * 4 * 2**20
EXECUTED_OVERHEAD = 256  # bytes a logged call costs besides its text: objects, digest

# Functions whose value a replay would not reproduce. DuckDB's own (duckdb_functions() with
# stability VOLATILE or CONSISTENT_WITHIN_QUERY) and the names sqlglot and drydock's MySQL macros
# (engine/sql/mysql_functions.py) give them.
VOLATILE_FUNCTIONS = frozenset(
    {
        "random", "rand", "uuid", "uuidv4", "uuidv7", "gen_random_uuid", "uuid_short",
        "nextval", "currval", "setval", "setseed",
        "now", "current_timestamp", "currenttimestamp", "get_current_timestamp",
        "transaction_timestamp", "current_date", "currentdate", "today", "current_time",
        "currenttime", "localtimestamp", "localtime", "curdate", "curtime", "sysdate",
        "unix_timestamp", "unixtimestamp", "utc_timestamp", "utc_date", "utc_time",
        "currenttimestamplocal", "current_query", "current_query_id", "current_transaction_id",
        "current_connection_id", "connection_id",
    }
)  # fmt: skip


def volatile_call(expression: exp.Expr) -> str:
    """The first function of ``expression`` a replay would not repeat, else "". CREATE TABLE
    only declares its columns' defaults (an AUTO_INCREMENT column's ``nextval``): only its
    ``AS`` query runs."""
    if isinstance(expression, exp.Create):
        query = expression.expression
        return volatile_call(query) if isinstance(query, exp.Expr) else ""
    for node in expression.find_all(exp.Func):
        names = {node.sql_name().lower(), type(node).__name__.lower()}
        if isinstance(node, exp.Anonymous):
            names.add(node.name.lower())
        hit = names & VOLATILE_FUNCTIONS
        if hit:
            return min(hit)
    return ""


class WriteClock:
    """Commits of writes to the internal database in this process: a version and the commits in
    flight. A transaction reads the version before its BEGIN; its replay is sound only if the
    version is unchanged and nothing is committing when it begins again (a commit counted after
    DuckDB applied it could otherwise be missed)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._version = 0
        self._in_flight = 0

    @property
    def version(self) -> int:
        with self._lock:
            return self._version

    @contextmanager
    def committing(self) -> Iterator[None]:
        with self._lock:
            self._in_flight += 1
        try:
            yield
        finally:
            with self._lock:
                self._in_flight -= 1
                self._version += 1

    def unchanged_since(self, version: int) -> bool:
        with self._lock:
            return self._version == version and self._in_flight == 0


@dataclass
class Executed:
    """One DuckDB call of a statement, and the rows it returned (hashed as fetched)."""

    sql: str
    params: list[Any] | None
    _hash: Any = field(default_factory=lambda: hashlib.blake2b(digest_size=16))
    complete: bool = False  # every row was fetched: the digest can be compared

    def add(self, rows: list[Any], complete: bool) -> None:
        for row in rows:
            self._hash.update(repr(row).encode())
        self.complete = self.complete or complete

    @property
    def digest(self) -> str | None:
        return self._hash.hexdigest() if self.complete else None


@dataclass
class LoggedStatement:
    """One successful statement of the transaction: what to replay, and on which schema."""

    schema: str | None
    executed: list[Executed]
    unreplayable: str = ""  # why a replay would not rebuild its effect ("" when it would)
    # each sequence it may draw from, as it was just before the statement ran
    sequence_starts: dict[str, tuple[Any, Any]] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return sum(len(e.sql) + len(repr(e.params)) + EXECUTED_OVERHEAD for e in self.executed)


class RecordingCursor:
    """The session's DuckDB cursor, recording what a statement executes while one is logged
    (:meth:`start`); everything else is DuckDB's cursor unchanged."""

    def __init__(self, cursor: duckdb.DuckDBPyConnection):
        self.raw = cursor
        self.pending: LoggedStatement | None = None
        self._current: Executed | None = None

    def start(self, schema: str | None) -> None:
        self.pending = LoggedStatement(schema=schema, executed=[])

    def finish(self) -> LoggedStatement | None:
        """The statement's record (None when none was started); recording stops."""
        pending, self.pending, self._current = self.pending, None, None
        return pending

    def execute(self, sql: str, params: Any = None) -> RecordingCursor:
        if params is None:
            self.raw.execute(sql)
        else:
            self.raw.execute(sql, params)
        if self.pending is not None:
            self._current = Executed(sql, list(params) if params is not None else None)
            self.pending.executed.append(self._current)
        else:
            self._current = None
        return self

    def fetchall(self) -> list[Any]:
        rows = self.raw.fetchall()
        if self._current is not None:
            self._current.add(rows, complete=True)
        return rows

    def fetchmany(self, size: int = 1) -> list[Any]:
        rows = self.raw.fetchmany(size)
        if self._current is not None:
            self._current.add(rows, complete=len(rows) < size)
        return rows

    def fetchone(self) -> Any:
        row = self.raw.fetchone()
        if self._current is not None:
            self._current.add([] if row is None else [row], complete=row is None)
        return row

    @property
    def description(self) -> Any:
        return self.raw.description

    def register(self, name: str, value: Any) -> Any:
        if self.pending is not None and not self.pending.unreplayable:
            self.pending.unreplayable = "a statement read a table of an external catalog"
        return self.raw.register(name, value)

    def unregister(self, name: str) -> Any:
        return self.raw.unregister(name)

    def interrupt(self) -> None:
        self.raw.interrupt()

    def close(self) -> None:
        self.raw.close()

    def note_sequence(self, sequence: str) -> None:
        """The statement about to run may draw from ``sequence`` ('schema.name'): its value
        now is kept, so a replay draws the same ids (see the module docstring)."""
        if self.pending is not None and sequence not in self.pending.sequence_starts:
            self.pending.sequence_starts[sequence] = sequence_state(self.raw, sequence)


def sequence_state(cursor: Any, sequence: str) -> tuple[Any, Any]:
    """(last_value or None when never drawn, start_value) of an internal sequence."""
    schema, name = sequence.split(".", 1)
    rows = cursor.execute(
        "SELECT last_value, start_value FROM duckdb_sequences() WHERE database_name = ? "
        "AND schema_name = ? AND sequence_name = ?",
        [INTERNAL, schema, name],
    ).fetchall()
    return (rows[0][0], rows[0][1]) if rows else (None, 1)


def set_sequence(cursor: Any, sequence: str, state: tuple[Any, Any]) -> None:
    last, start = state
    if last is None:
        cursor.execute("SELECT setval(?, ?, false)", [sequence, start]).fetchall()
    else:
        cursor.execute("SELECT setval(?, ?)", [sequence, last]).fetchall()


class TransactionLog:
    """The statements of one explicit transaction and its savepoints (name, log position)."""

    def __init__(self, version: int, limit: int = MAX_LOG_BYTES):
        self.version = version  # WriteClock version read before the transaction's BEGIN
        self.limit = limit
        self.statements: list[LoggedStatement] = []
        self.length = 0  # statements logged, kept or not (past the bound they are not kept)
        self.size = 0
        self.wrote = False
        self.savepoints: list[tuple[str, int]] = []

    def append(self, statement: LoggedStatement) -> None:
        self.wrote = True
        if self.length == len(self.statements) and self.size + statement.size <= self.limit:
            self.statements.append(statement)
            self.size += statement.size
        self.length += 1

    def mark(self, name: str) -> None:
        """SAVEPOINT: a savepoint of the same name is moved here."""
        self.savepoints = [s for s in self.savepoints if s[0] != name.lower()]
        self.savepoints.append((name.lower(), self.length))

    def _index(self, name: str) -> int:
        for i, (known, _position) in enumerate(self.savepoints):
            if known == name.lower():
                return i
        raise Errors.SAVEPOINT_DOES_NOT_EXIST.error(name=name)

    def release(self, name: str) -> None:
        """RELEASE SAVEPOINT: the savepoint and every later one are gone."""
        del self.savepoints[self._index(name) :]

    def rollback_to(self, name: str) -> int:
        """ROLLBACK TO: later savepoints are gone, this one stays; its log position."""
        index = self._index(name)
        del self.savepoints[index + 1 :]
        return self.savepoints[index][1]

    def unreplayable(self, position: int) -> str:
        """Why the statements before ``position`` cannot be replayed ("" when they can)."""
        if position > len(self.statements):
            return f"the transaction's statement log outgrew its bound ({self.limit} bytes)"
        for statement in self.statements[:position]:
            if statement.unreplayable:
                return statement.unreplayable
        return ""

    def truncate(self, position: int) -> None:
        del self.statements[position:]
        self.length = position
        self.size = sum(s.size for s in self.statements)

    def sequences(self, position: int) -> set[str]:
        """The sequences the statements before ``position`` drew from."""
        return {s for statement in self.statements[:position] for s in statement.sequence_starts}


def replay(cursor: Any, statements: list[LoggedStatement], schema: str | None) -> str:
    """Run the logged statements again on ``cursor`` (a fresh DuckDB transaction), comparing each
    call's rows with the first run's. Returns why the replay differs, "" when it does not; the
    cursor's schema is ``schema`` afterwards."""
    try:
        for statement in statements:
            _use(cursor, statement.schema)  # as it began (a USE it ran itself is in its calls)
            for sequence, state in statement.sequence_starts.items():
                set_sequence(cursor, sequence, state)  # it draws the ids it drew before
            for executed in statement.executed:
                if executed.params is None:
                    cursor.execute(executed.sql)
                else:
                    cursor.execute(executed.sql, executed.params)
                again = Executed(executed.sql, None)
                again.add(cursor.fetchall() if cursor.description else [], complete=True)
                if executed.digest is not None and executed.digest != again.digest:
                    return "a statement replayed with other rows or counts than it first had"
        _use(cursor, schema)
    except duckdb.Error as exc:
        return f"a statement failed when replayed: {str(exc).splitlines()[0][:200]}"
    return ""


def _use(cursor: Any, schema: str | None) -> None:
    cursor.execute(f"USE {INTERNAL}.{quoted(schema or 'main')}")
