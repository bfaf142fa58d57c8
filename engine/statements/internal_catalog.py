"""SHOW CREATE TABLE for tables of the internal (DuckDB) catalog, in MySQL syntax."""

from __future__ import annotations

import sqlglot

from engine import ast
from engine.core import Engine
from engine.errors import Errors
from engine.info_schema import INTERNAL
from engine.results import Result
from engine.session import SessionContext


def split_name(parts: tuple[str, ...], ctx: SessionContext) -> tuple[str, str, str]:
    """[[catalog.]db.]table → (catalog, db, table), short forms in the session's catalog/db."""
    if len(parts) == 3:
        return parts[0], parts[1], parts[2]
    if len(parts) == 2:
        return ctx.catalog, parts[0], parts[1]
    if ctx.database is None:
        raise Errors.NO_DB_SELECTED.error()
    return ctx.catalog, ctx.database, parts[0]


def show_create_table(engine: Engine, stmt: ast.ShowCreateTable, ctx: SessionContext) -> Result:
    catalog, db, table = split_name(stmt.parts, ctx)
    not_found = Errors.UNKNOWN_TABLE.error(table=f"{db}.{table}")
    if not engine.privileges.may_see_table(ctx, catalog, db, table):
        raise Errors.TABLE_ACCESS_DENIED.error(priv="SHOW", user=ctx.user, host=ctx.host,
                                               table=f"{db}.{table}")
    if catalog != INTERNAL:
        raise not_found
    ddl = engine.query.table_ddl(db, table)
    if ddl is None:
        raise not_found
    mysql = sqlglot.transpile(ddl, read="duckdb", write="mysql", pretty=True)[0]
    mysql = mysql.replace(f"CREATE TABLE {db}.{table}", f"CREATE TABLE `{table}`", 1)
    return Result(columns=["Table", "Create Table"], rows=[(table, mysql)])
