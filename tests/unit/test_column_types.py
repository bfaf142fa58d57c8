"""engine/sql/column_types.py: ALTER TABLE's DuckDB type of a declared column is the type CREATE
TABLE gives DuckDB for that declaration (engine/sql/mysql_ddl.py)."""

from __future__ import annotations

import pytest
from sqlglot import exp

from drydock.engine.dictionary import declare
from drydock.engine.sql import mysql_ddl
from drydock.engine.sql.column_types import duckdb_sql, duckdb_type
from drydock.grammar.sql import parse

TYPES = [
    "INT",
    "INT(11)",
    "INT UNSIGNED",
    "TINYINT(1)",
    "SMALLINT",
    "MEDIUMINT UNSIGNED",
    "BIGINT UNSIGNED",
    "BIGINT(20) UNSIGNED ZEROFILL",
    "DECIMAL(10,2)",
    "FLOAT",
    "FLOAT(30)",
    "DOUBLE",
    "DOUBLE(8,3)",
    "VARCHAR(40)",
    "CHAR(3)",
    "TEXT",
    "MEDIUMTEXT",
    "LONGTEXT",
    "BLOB",
    "VARBINARY(16)",
    "DATE",
    "DATETIME",
    "DATETIME(3)",
    "TIMESTAMP",
    "TIME",
    "JSON",
    "ENUM('a','b')",
    "FLOAT[3]",
]


@pytest.mark.parametrize("declared", TYPES)
def test_alter_type_agrees_with_create(declared: str) -> None:
    create = parse(f"CREATE TABLE t (c {declared})")
    assert isinstance(create, exp.Create)
    column = declare.table_def(create, "d").columns[0]
    mysql_ddl.adapt_create_table(create, "d")
    created = create.find(exp.DataType)
    assert created is not None
    assert duckdb_type(column).upper() == created.sql(dialect="duckdb").upper()


def test_default_text_as_duckdb_sql() -> None:
    assert duckdb_sql("'x'") == "'x'"
    assert duckdb_sql("CURRENT_TIMESTAMP") == "CURRENT_TIMESTAMP"


@pytest.mark.parametrize(
    ("declared", "altered"),
    # CREATE TABLE hands DuckDB these as written (BOOLEAN; DECIMAL, which DuckDB reads as
    # DECIMAL(18,3)); the dictionary keeps MySQL's meaning (TINYINT(1), DECIMAL(10,0)). ALTER's
    # rebuild keeps an unchanged column's DuckDB type as it is, and gives a new or modified one
    # the declared meaning.
    [("BOOLEAN", "TINYINT"), ("DECIMAL", "DECIMAL(10, 0)")],
)
def test_types_create_hands_duckdb_as_written(declared: str, altered: str) -> None:
    create = parse(f"CREATE TABLE t (c {declared})")
    assert isinstance(create, exp.Create)
    assert duckdb_type(declare.table_def(create, "d").columns[0]) == altered
