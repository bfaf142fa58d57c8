"""Every MySQL column type creates a table (engine/sql/mysql_ddl.py storage_type): the types DuckDB
lacks are stored in the DuckDB type that holds each of their values, and read back as written."""

from __future__ import annotations

import pytest

CASES = [
    ("YEAR", "2024", 2024),
    ("SET('a','b')", "'a,b'", "a,b"),
    ("BIT(8)", "5", b"\x05"),  # sent as its bytes, as MySQL sends BIT
    ("MEDIUMINT", "-8388608", -8388608),
    ("MEDIUMINT UNSIGNED", "16777215", 16777215),
    ("BINARY(3)", "'abc'", b"abc"),
    ("VARBINARY(4)", "'ab'", b"ab"),
    ("DOUBLE UNSIGNED", "2.5", 2.5),
    ("FLOAT UNSIGNED", "0.5", 0.5),
    ("DECIMAL(10,2) UNSIGNED", "12.5", "12.50"),
    ("DECIMAL(65,30)", "1.5", "1.500000000000000000000000000000"),
]


@pytest.mark.parametrize(("declared", "literal", "expected"), CASES, ids=[c[0] for c in CASES])
def test_type_creates_and_round_trips(
    shared_server, declared: str, literal: str, expected: object
) -> None:  # type: ignore[no-untyped-def]
    conn = shared_server.connect()
    cur = conn.cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS storage_types")
    cur.execute("USE storage_types")
    cur.execute("DROP TABLE IF EXISTS t")
    cur.execute(f"CREATE TABLE t (x {declared})")
    cur.execute(f"INSERT INTO t VALUES ({literal})")
    cur.execute("SELECT x FROM t")
    value = cur.fetchall()[0][0]
    assert (str(value) if isinstance(expected, str) else value) == expected
    conn.close()
