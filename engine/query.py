"""The SQL passthrough: statements the grammar does not own run on DuckDB.

The statement arrives as a sqlglot MySQL AST (the server parsed it); here it is adapted to what
drydock serves — ``FROM DUAL`` dropped, ``information_schema`` pointed at the MySQL-shaped views,
``CREATE/DROP DATABASE`` mapped to DuckDB schemas — then generated as DuckDB SQL and run on the
session's own cursor. Each session has its own DuckDB cursor so sessions never share a
transaction or a current schema, and :meth:`QuerySession.interrupt` cancels a running statement.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import duckdb
from sqlglot import exp

from engine import info_schema
from engine.errors import Errors
from engine.results import Diagnostic, Result
from engine.session import SessionContext

_ROW_COUNT_STATEMENTS = (exp.Insert, exp.Update, exp.Delete)


class QueryEngine:
    """Owns the internal catalog's DuckDB database (one file in the data directory)."""

    def __init__(self, path: Path | str):
        self._db = duckdb.connect(str(path))
        catalog = self._db.execute("SELECT current_database()").fetchone()
        if catalog is None or catalog[0] != info_schema.INTERNAL:
            raise RuntimeError(f"internal catalog file must be named {info_schema.INTERNAL}.duckdb")
        info_schema.install(self._db)
        self._lock = threading.Lock()

    def session(self) -> QuerySession:
        with self._lock:
            return QuerySession(self._db.cursor())

    def close(self) -> None:
        self._db.close()


class QuerySession:
    def __init__(self, cursor: duckdb.DuckDBPyConnection):
        self._cursor = cursor
        self._schema: str | None = "main"

    def interrupt(self) -> None:
        self._cursor.interrupt()

    def close(self) -> None:
        self._cursor.close()

    def run(self, expression: exp.Expression, ctx: SessionContext) -> Result:
        expression = adapt(expression, ctx)
        sql = expression.sql(dialect="duckdb")
        self._use(ctx.database)
        notes = self._if_exists_notes(expression, ctx)
        try:
            self._cursor.execute(sql)
        except duckdb.ParserException as exc:
            raise Errors.PARSE.error(detail=_first_line(exc)) from None
        except duckdb.InterruptException:
            raise Errors.QUERY_INTERRUPTED.error() from None
        except duckdb.Error as exc:
            raise Errors.QUERY_FAILED.error(detail=_first_line(exc)) from None
        description = self._cursor.description
        if isinstance(expression, _ROW_COUNT_STATEMENTS):
            row = self._cursor.fetchone()
            return Result.ok(affected_rows=int(row[0]) if row else 0)
        if not description or _is_ddl(expression):
            return Result.ok(warnings=notes)
        rows = self._cursor.fetchall()
        columns = [d[0] for d in description]
        return Result(columns=columns, rows=rows,
                      column_types={d[0]: str(d[1]) for d in description})

    def _use(self, database: str | None) -> None:
        target = database if database and database.lower() != "information_schema" else "main"
        if target == self._schema:
            return
        try:
            self._cursor.execute(f"USE {info_schema.INTERNAL}.{_quote(target)}")
        except duckdb.Error:
            raise Errors.UNKNOWN_DATABASE.error(db=target) from None
        self._schema = target

    def _if_exists_notes(self, expression: exp.Expression, ctx: SessionContext) -> list[Diagnostic]:
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
        row = self._cursor.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE database_name = ? AND schema_name = ? "
            "AND table_name = ?", [info_schema.INTERNAL, schema, name]).fetchone()
        return bool(row and row[0])

    def schema_exists(self, name: str) -> bool:
        row = self._cursor.execute(
            "SELECT count(*) FROM duckdb_schemas() WHERE database_name = ? AND schema_name = ?",
            [info_schema.INTERNAL, name],
        ).fetchone()
        return bool(row and row[0])


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _is_ddl(expression: exp.Expression) -> bool:
    return isinstance(expression, (exp.Create, exp.Drop, exp.Alter, exp.Command))


def adapt(expression: exp.Expression, ctx: SessionContext) -> exp.Expression:
    """MySQL AST → the AST drydock runs on DuckDB (see module docstring)."""
    expression = expression.copy()
    if isinstance(expression, (exp.Create, exp.Drop)) and expression.args.get("kind", "").upper() == "DATABASE":
        expression.set("kind", "SCHEMA")
    in_info_schema = (ctx.database or "").lower() == "information_schema"
    for table in list(expression.find_all(exp.Table)):
        db = table.text("db").lower()
        name = table.name
        if isinstance(expression, exp.Select) and not db and name.upper() == "DUAL" and not table.args.get("catalog"):
            _drop_dual(table)
            continue
        if db == "information_schema" or (in_info_schema and not db and not table.args.get("catalog")):
            table.set("catalog", exp.to_identifier(info_schema.ATTACHED_NAME))
            table.set("db", exp.to_identifier("main"))
            table.set("this", exp.to_identifier(name.lower()))
    return expression


def _drop_dual(table: exp.Table) -> None:
    parent: Any = table.parent
    if isinstance(parent, exp.From):
        select = parent.parent
        if isinstance(select, exp.Select):
            select.set("from_", None)

