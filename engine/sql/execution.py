"""Running a statement's final text on the session's DuckDB cursor: its result (an OK, a row count,
rows fetched at once or streamed batch by batch), MySQL's notes for IF [NOT] EXISTS no-ops, and
DuckDB's errors as MySQL's (engine/sql/duckdb_errors.py) — while it runs and while its rows are
fetched.

:class:`StatementExecution` is a part of engine/sql/query.py's QuerySession, which sets the state
it uses.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import duckdb
from sqlglot import exp

from drydock.engine.errors import DrydockError, Errors
from drydock.engine.results import Diagnostic, Result, RowStream
from drydock.engine.session import INTERNAL, SessionContext
from drydock.engine.sql import (
    dml_counts,
    duckdb_errors,
    group_by_keys,
    mysql_ddl,
    mysql_dml,
    replace_rows,
)
from drydock.engine.sql.deadlines import SessionDeadline
from drydock.engine.sql.duckdb_errors import first_line
from drydock.engine.sql.identifiers import quoted
from drydock.engine.sql.table_traits import TableTraits
from drydock.engine.sql.transactions import SessionTransaction

# Rows per fetch of a streamed result: DuckDB's vector size. fetchmany(2048) costs ~1.1 µs a row
# (3 columns), less than fetchall (~1.7 µs) or an Arrow reader turned into tuples (~1.8 µs);
# and a result that fits in one batch is answered exactly as before, in one piece.
STREAM_BATCH_ROWS = 2048
_ROW_COUNT_STATEMENTS = (exp.Insert, exp.Update, exp.Delete)


class StatementExecution(SessionDeadline):
    """The execution of QuerySession (engine/sql/query.py), which sets these in its __init__."""

    _schema: str | None
    _traits: TableTraits
    _ddl_in_transaction: bool
    transaction: SessionTransaction

    def release(self) -> None:
        """Drop what the cursor keeps of its last statement (DuckDB holds the last prepared
        statement until the next one): run after a large statement."""
        try:
            self._cursor.execute("SELECT 1").fetchall()
        except duckdb.Error:
            pass

    def _execute(
        self,
        expression: exp.Expr,
        sql: str,
        ctx: SessionContext,
        key: mysql_dml.AutoIncrement | None = None,
        stream: bool = False,
    ) -> Result:
        self._use(ctx.database if ctx.catalog.lower() == INTERNAL else None)
        notes = self._if_exists_notes(expression, ctx)
        with self.duckdb_errors(expression, ctx):
            after = (
                [
                    *mysql_ddl.sequences_of(self._cursor, expression),
                    *mysql_ddl.definitions_dropped(expression),
                ]
                if isinstance(expression, exp.Drop)
                else expression.meta.get("create_after") or []
            )
            self.limit_time(
                ctx.time_limit_ms
            )  # max_execution_time: SELECTs only (engine/statements/sql.py)
            if "replace" in expression.meta and isinstance(expression, exp.Insert):
                return self._replace(expression, key)  # engine/sql/replace_rows.py
            counted = dml_counts.table_count_sql(expression)
            before = after_rows = changed = None
            returned: list[tuple[Any, ...]] = []
            if counted is not None:  # ON DUPLICATE KEY UPDATE (engine/sql/dml_counts.py)
                before, returned, after_rows = self._run_counted(sql, counted)
                count = int(returned[0][0]) if returned and key is None else len(returned)
            else:
                changed_sql = expression.meta.get("changed_rows_sql")
                if changed_sql:
                    changed = int(self._cursor.execute(changed_sql).fetchall()[0][0])
                self._run_statement(
                    sql,
                    expression.meta.get("create_first") or [],
                    after,
                    expression.meta.get("definition_change"),
                )
            if _is_ddl(expression):
                self._traits.changed()  # engine/sql/table_traits.py
                self._ddl_in_transaction = self._ddl_in_transaction or self.transaction.open
        # DuckDB streams a query's result: most of its work (and its interruption, its running out
        # of memory) may happen in the fetch, which answers the same errors
        with self.duckdb_errors(expression, ctx):
            description = self._cursor.description
            if key is not None:
                if counted is not None:
                    return self._auto_increment_result(
                        expression, key, returned, before, after_rows
                    )
                return self._auto_increment_result(expression, key, self._cursor.fetchall())
            if isinstance(expression, _ROW_COUNT_STATEMENTS):
                if counted is None:
                    rows = self._cursor.fetchall()  # drained: DuckDB refuses new work meanwhile
                    count = int(rows[0][0]) if rows else 0
                if isinstance(expression, exp.Update):
                    return dml_counts.update_result(count, changed)
                if isinstance(expression, exp.Insert):
                    return dml_counts.insert_result(expression, count, before, after_rows)
                return Result.ok(affected_rows=count)
            if not description or _is_ddl(expression):
                if description:
                    self._cursor.fetchall()  # drain: DuckDB refuses new work while a result is open
                return Result.ok(warnings=notes)
            result = Result(
                columns=[d[0] for d in description],
                column_types={d[0]: str(d[1]) for d in description},
            )
            if not stream:
                result.rows = self._cursor.fetchall()
                return result
            # DuckDB produces the rows as they are fetched: one batch now; when that does not
            # exhaust the result, the rest is read batch by batch while the server sends
            # (server/connection.py), so neither the rows nor their packets exist all at once.
            result.rows = self._cursor.fetchmany(STREAM_BATCH_ROWS)
        if len(result.rows) == STREAM_BATCH_ROWS:
            result.stream = RowStream(
                len(result.rows), lambda: self._next_batch(expression, ctx), self._close_stream
            )
        return result

    def _next_batch(self, expression: exp.Expr, ctx: SessionContext) -> list[tuple[Any, ...]]:
        """The next batch of a streamed result ([] at its end, which ends its time limit). DuckDB
        runs the query as it is fetched, so its runtime errors (a failed cast on row 1,000,000)
        and interruptions (KILL QUERY, max_execution_time) are raised here, mid-result."""
        try:
            if ctx.cancel.is_set():  # KILL QUERY while the previous batch was sent (nothing ran
                raise Errors.QUERY_INTERRUPTED.error()  # in DuckDB for its interrupt to stop)
            with self.duckdb_errors(expression, ctx):
                batch = self._cursor.fetchmany(STREAM_BATCH_ROWS)
        except BaseException:
            self.end_time_limit()  # no deadline interrupt may reach the rollback
            # engine/sql/transactions.py: DuckDB aborts the whole one
            self.transaction.after_failure()
            raise
        if not batch:
            self.end_time_limit()
        return batch

    def _close_stream(self) -> None:
        """A streamed result dropped before its end: its time limit ends, DuckDB's result goes."""
        self.end_time_limit()
        self.release()

    @contextmanager
    def duckdb_errors(self, expression: exp.Expr, ctx: SessionContext) -> Iterator[None]:
        """DuckDB's exceptions raised while a statement runs or its rows are fetched → MySQL's
        errors (engine/sql/duckdb_errors.py); an interrupt is 3024 or 1317
        (:meth:`interrupted_error`)."""
        try:
            yield
        except duckdb.ParserException as exc:
            raise Errors.PARSE.error(detail=first_line(exc)) from None
        except duckdb.InterruptException:
            raise self.interrupted_error() from None
        except duckdb.CatalogException as exc:
            missing = _MISSING_TABLE.match(first_line(exc))
            if missing:
                raise Errors.UNKNOWN_TABLE.error(
                    table=_qualified(missing.group(1), expression, ctx)
                ) from None
            raise duckdb_errors.translate(
                exc, _error_context(expression, ctx)
            ) or Errors.QUERY_FAILED.error(detail=first_line(exc)) from None
        except (
            duckdb.Error
        ) as exc:  # MySQL's code and wording where known (engine/sql/duckdb_errors.py)
            raise (
                group_by_keys.not_in_group_by(first_line(exc), expression)
                or duckdb_errors.translate(exc, _error_context(expression, ctx))
                or Errors.QUERY_FAILED.error(detail=first_line(exc))
            ) from None

    def _auto_increment_result(
        self,
        insert: exp.Expr,
        key: mysql_dml.AutoIncrement,
        rows: list[tuple[Any, ...]],
        before: int | None = None,
        after: int | None = None,
    ) -> Result:
        """The OK of an INSERT into a table with an AUTO_INCREMENT column
        (engine/sql/mysql_dml.py). ``rows``: RETURNING the column's values, or the row count;
        ``before``/``after``: the table's rows around an ON DUPLICATE KEY UPDATE."""
        affected = len(rows) if key.generates else (int(rows[0][0]) if rows else 0)
        table = mysql_dml.target_table(insert) if isinstance(insert, exp.Insert) else None
        gap = mysql_dml.catch_up(key, self._cursor, table) if table is not None else None
        warnings = [] if gap is None else [Errors.AUTO_INCREMENT_BEHIND.warning(gap=gap)]
        # the counts and info string (``Records: 3  Duplicates: 0  Warnings: 0``) as for any
        # other INSERT
        counts = (
            dml_counts.insert_result(insert, affected, before, after)
            if isinstance(insert, exp.Insert)
            else Result.ok(affected_rows=affected)
        )
        counts.warnings = warnings
        counts.last_insert_id = mysql_dml.first_generated(key, rows) if key.generates else 0
        return counts

    def _replace(self, insert: exp.Insert, key: mysql_dml.AutoIncrement | None) -> Result:
        """A REPLACE on an internal table, all or nothing, with MySQL's counts and OK info."""
        done: list[replace_rows.Replaced] = []
        plan, deleting = insert.meta["replace"], insert.meta.get("replace_deleting")

        def work() -> None:
            done.append(replace_rows.run(self._cursor, insert, plan, key, deleting))

        try:
            self._atomically(work)
        except DrydockError:
            if self.transaction.open:  # refused midway (1451): DuckDB's transaction is aborted,
                self._abort_transaction()  # so the statement is undone (transactions.py)
            raise
        replaced = done[0]
        result = dml_counts.replace_result(insert, replaced.records, replaced.deleted)
        if key is not None:
            table = mysql_dml.target_table(insert)
            gap = mysql_dml.catch_up(key, self._cursor, table) if table is not None else None
            if gap is not None:
                result.warnings = [Errors.AUTO_INCREMENT_BEHIND.warning(gap=gap)]
            if key.generates:
                result.last_insert_id = mysql_dml.first_generated(key, replaced.returned)
        return result

    def _abort_transaction(self) -> None:
        """Abort DuckDB's open transaction: what a failing statement did in it is then undone
        by the rebuild engine/sql/transactions.py makes after any statement DuckDB aborted."""
        try:
            self._cursor.raw.execute("SELECT error('statement refused')").fetchall()
        except duckdb.Error:
            pass

    def _run_counted(self, sql: str, count_sql: str) -> tuple[int, list[tuple[Any, ...]], int]:
        """(the table's rows before, the INSERT's own rows — DuckDB's row count, or RETURNING's
        values — , the rows after) of an INSERT, in one transaction (the session's, or one of
        its own)."""
        counts: list[int] = []
        returned: list[tuple[Any, ...]] = []

        def run() -> None:
            counts.append(int(self._cursor.execute(count_sql).fetchall()[0][0]))
            returned[:] = self._cursor.execute(sql).fetchall()
            counts.append(int(self._cursor.execute(count_sql).fetchall()[0][0]))

        self._atomically(run)
        return counts[0], returned, counts[1]

    def _run_statement(
        self,
        sql: str,
        before: list[str],
        after: list[str],
        definition_change: Callable[[Any], list[str]] | None = None,
    ) -> None:
        """``sql`` with the statements it needs before (an AUTO_INCREMENT column's sequence) and
        after (DROP TABLE: that sequence), all in one transaction: nothing is left half done.
        ``definition_change`` (CREATE TABLE … LIKE: engine/dictionary/changes.py) reads the data
        dictionary inside that transaction, after ``sql``, and gives the statements that follow."""
        if not before and not after and definition_change is None:
            self._cursor.execute(sql)
            return

        def run() -> None:
            for statement in [*before, sql, *after]:
                self._cursor.execute(statement)
            for statement in definition_change(self._cursor) if definition_change else []:
                self._cursor.execute(statement)

        self._atomically(run)

    def _atomically(self, work: Callable[[], None]) -> None:
        """``work`` (statements on the session's cursor) all or nothing: in the session's open
        transaction, else in one of its own, committed at its end and rolled back at a failure."""
        own = not self.transaction.open
        if own:
            self._cursor.execute("BEGIN TRANSACTION")
        try:
            work()
        except BaseException:
            if own:
                self._cursor.execute("ROLLBACK")
            raise
        if own:
            self._cursor.execute("COMMIT")

    def _use(self, database: str | None) -> None:
        target = database if database and database.lower() != "information_schema" else "main"
        if target == self._schema:
            return
        try:
            self._cursor.execute(f"USE {INTERNAL}.{quoted(target)}")
        except duckdb.Error:
            raise Errors.UNKNOWN_DATABASE.error(db=target) from None
        self._schema = target

    def _if_exists_notes(self, expression: exp.Expr, ctx: SessionContext) -> list[Diagnostic]:
        """MySQL's Notes for IF [NOT] EXISTS statements that turn out to be no-ops."""
        if not isinstance(expression, (exp.Create, exp.Drop)) or not expression.args.get("exists"):
            return []
        kind = str(expression.args.get("kind", "")).upper()
        tables = expression.args.get("tables") or []  # DROP TABLE a, b keeps them in "tables"
        target = tables[0] if isinstance(expression, exp.Drop) and tables else expression.this
        if kind == "SCHEMA":
            name = target.name if isinstance(target, exp.Table) else str(target.name)
            exists = self.schema_exists(name)
            if isinstance(expression, exp.Create) and exists:
                return [Errors.DB_CREATE_EXISTS.note(db=name)]
            if isinstance(expression, exp.Drop) and not exists:
                return [Errors.DB_DROP_EXISTS.note(db=name)]
        elif kind == "TABLE":
            table = target.this if isinstance(target, exp.Schema) else target
            if not isinstance(table, exp.Table):
                return []
            schema = table.text("db") or ctx.database or "main"
            exists = self.table_exists(schema, table.name)
            if isinstance(expression, exp.Create) and exists:
                return [Errors.TABLE_EXISTS.note(table=table.name)]
            if isinstance(expression, exp.Drop) and not exists:
                return [Errors.BAD_TABLE.note(table=f"{schema}.{table.name}")]
        return []

    def table_exists(self, schema: str, name: str) -> bool:
        rows = self._cursor.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE database_name = ? AND schema_name = ? "
            "AND table_name = ?",
            [INTERNAL, schema, name],
        ).fetchall()
        return bool(rows and rows[0][0])

    def schema_exists(self, name: str) -> bool:
        rows = self._cursor.execute(
            "SELECT count(*) FROM duckdb_schemas() WHERE database_name = ? AND schema_name = ?",
            [INTERNAL, name],
        ).fetchall()
        return bool(rows and rows[0][0])


_MISSING_TABLE = re.compile(r'Catalog Error: Table with name "?([^"\s!]+)"? does not exist')


def _qualified(name: str, expression: exp.Expr, ctx: SessionContext) -> str:
    """MySQL names a missing table ``db.table`` (1146); DuckDB's message may omit the schema."""
    if "." in name:
        return name
    for table in expression.find_all(exp.Table):
        if table.name == name and table.text("db"):
            return f"{table.text('db')}.{name}"
    return f"{ctx.database}.{name}" if ctx.database else name


def _error_context(expression: exp.Expr, ctx: SessionContext) -> duckdb_errors.Context:
    """The table a statement writes (MySQL names keys ``table.PRIMARY``) for error messages."""
    target = (
        expression.this
        if isinstance(expression, (exp.Insert, exp.Update, exp.Delete, exp.Create))
        else None
    )
    if isinstance(target, exp.Schema):
        target = target.this
    return duckdb_errors.Context(
        table=target.name if isinstance(target, exp.Table) else "",
        database=ctx.database or "",
        drop=isinstance(expression, exp.Drop),
        checks=tuple(expression.meta.get("checks") or ()),
    )


def _is_ddl(expression: exp.Expr) -> bool:
    """Statements that answer an OK packet whatever DuckDB returns (TRUNCATE returns a count)."""
    return isinstance(expression, (exp.Create, exp.Drop, exp.Alter, exp.Command, exp.TruncateTable))
