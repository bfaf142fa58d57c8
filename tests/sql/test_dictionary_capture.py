"""The data dictionary (engine/dictionary/) follows internal tables' DDL: CREATE TABLE records the
declaration in the CREATE's own transaction, DROP TABLE / DROP DATABASE remove it, and the
reserved schema holding it is neither listed nor reachable by user SQL."""

from __future__ import annotations

import duckdb
import pymysql
import pytest

from drydock.engine.dictionary import store
from drydock.engine.dictionary.model import table_from_json


def _definitions(server) -> dict[tuple[str, str], object]:  # type: ignore[no-untyped-def]
    server.stop()
    con = duckdb.connect(str(next(server.data_dir.rglob("internal.duckdb"))), read_only=True)
    try:
        rows = con.execute(
            f"SELECT schema_name, table_name, definition FROM {store.TABLE}"
        ).fetchall()
    finally:
        con.close()
    return {(s, t): table_from_json(d) for s, t, d in rows}


def test_create_records_drop_removes(server) -> None:  # type: ignore[no-untyped-def]
    conn = server.connect()
    cur = conn.cursor()
    cur.execute("CREATE DATABASE d1")
    cur.execute("CREATE DATABASE d2")
    cur.execute("USE d1")
    cur.execute("CREATE TABLE Kept (id INT UNSIGNED PRIMARY KEY, a VARCHAR(40), b ENUM('x','y'))")
    cur.execute("CREATE TABLE IF NOT EXISTS kept (z INT)")  # exists: its definition stays
    cur.execute("CREATE TABLE gone (id INT)")
    cur.execute("DROP TABLE gone")
    cur.execute("CREATE TABLE d2.t (id INT)")
    cur.execute("DROP DATABASE d2")
    with pytest.raises(pymysql.err.MySQLError):
        cur.execute("CREATE TABLE bad (id INT, id INT)")  # fails: nothing recorded
    cur.execute("CREATE TABLE copied AS SELECT 1 AS x")  # columns from a query: no declaration
    conn.close()
    definitions = _definitions(server)
    assert set(definitions) == {("d1", "kept")}
    kept = definitions[("d1", "kept")]
    assert [c.column_type() for c in kept.columns] == [
        "int unsigned",
        "varchar(40)",
        "enum('x','y')",
    ]  # type: ignore[attr-defined]
    assert kept.name == "Kept"  # type: ignore[attr-defined]


def test_reserved_schema_hidden(server) -> None:  # type: ignore[no-untyped-def]
    cur = server.connect().cursor()
    cur.execute("SHOW DATABASES")
    assert store.SCHEMA not in [r[0] for r in cur.fetchall()]
    cur.execute(
        "SELECT count(*) FROM information_schema.SCHEMATA WHERE schema_name = %s", [store.SCHEMA]
    )
    assert cur.fetchall()[0][0] == 0
    with pytest.raises(pymysql.err.ProgrammingError) as error:
        cur.execute(f"SELECT * FROM {store.SCHEMA}.tables")
    assert error.value.args[0] == 1146
