"""A declared column's DuckDB type, and a MySQL expression's DuckDB text, as CREATE TABLE gives
them (engine/sql/mysql_ddl.py): what ALTER TABLE (engine/sql/mysql_alter.py,
engine/sql/alter_in_place.py) writes for DuckDB must agree with what CREATE TABLE wrote."""

from __future__ import annotations

from typing import Any

import sqlglot
from sqlglot import exp

from drydock.engine.dictionary.model import ColumnDef
from drydock.engine.session import INTERNAL
from drydock.engine.sql.mysql_ddl import storage_type
from drydock.grammar.sql import DIALECT


def duckdb_type(column: ColumnDef) -> str:
    """The DuckDB type of a declared column, as CREATE TABLE gives it (engine/sql/mysql_ddl.py
    storage_type over sqlglot's MySQL type)."""
    if not column.is_mysql_type:
        return column.data_type
    text = column.column_type().replace(" zerofill", "")
    data_type = exp.DataType.build(text, dialect=DIALECT)
    storage_type(data_type)
    return data_type.sql(dialect="duckdb")


def duckdb_sql(mysql_text: str) -> str:
    """A MySQL expression kept as text in the dictionary (a DEFAULT, a CHECK) as DuckDB SQL."""
    return str(sqlglot.transpile(mysql_text, read=DIALECT, write="duckdb")[0])


def stored_types(cursor: Any, schema: str, table: str, catalog: str = INTERNAL) -> dict[str, str]:
    """Each stored column's DuckDB type, by lower-case name, as DuckDB's catalog has it now."""
    rows = cursor.execute(
        "SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = ? "
        "AND schema_name = ? AND table_name = ?",
        [catalog, schema, table],
    ).fetchall()
    return {str(name).lower(): str(kind) for name, kind in rows}
