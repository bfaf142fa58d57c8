"""engine/sql/identifiers.py: a name spelled with quoted() is the one identifier DuckDB reads."""

from __future__ import annotations

import duckdb
import pytest

from drydock.engine.sql.identifiers import quoted


@pytest.mark.parametrize("name", ["plain", 'with "quotes"', "dots.and spaces", '"', "Mixed"])
def test_duckdb_reads_the_quoted_name_back_unchanged(name: str) -> None:
    con = duckdb.connect()
    con.execute(f"CREATE SCHEMA {quoted(name)}")
    con.execute(f"CREATE TABLE {quoted(name)}.{quoted(name)} (x INTEGER)")
    rows = con.execute("SELECT schema_name, table_name FROM duckdb_tables()").fetchall()
    assert rows == [(name, name)]
