"""engine/sql/duckdb_errors.py: every row of the DuckDB → MySQL error table, produced by real
DuckDB.

Each case runs a statement that makes DuckDB raise, translates the exception and checks MySQL's
code, SQLSTATE and message; a meta-test checks that every rule of the table has a case.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from drydock.engine.sql import duckdb_errors
from drydock.engine.sql.duckdb_errors import Context

SPILL_DIR = Path(tempfile.gettempdir()) / f"drydock-test-duckdb-errors-{os.getpid()}"
SETUP = [
    # statement bounds (README "Statement bounds"): small, so that the cases below exceed them
    "SET memory_limit = '64MiB'",
    f"SET temp_directory = '{SPILL_DIR}'",
    "SET max_temp_directory_size = '32MiB'",
    "CREATE TABLE p (id INT PRIMARY KEY, v VARCHAR NOT NULL UNIQUE, d DECIMAL(4,2), t TINYINT, ts "
    "TIMESTAMP)",
    "CREATE TABLE ch (id INT PRIMARY KEY, pid INT REFERENCES p(id))",
    "INSERT INTO p VALUES (1, 'a', 1, 1, NULL)",
    "INSERT INTO ch VALUES (1, 1)",
    "CREATE TABLE ck (a INT, b INT, CHECK (a > 0), CHECK (b < 5))",
]
CTX = Context(table="p", database="d1")

# (sql, context, code, sqlstate, message)
CASES = [
    # DuckDB's own json functions (MySQL 3141, naming json_extract)
    (
        "SELECT json_extract('{a', '$.a')",
        CTX,
        3141,
        "22032",
        'Invalid JSON text in argument 1 to function json_extract: "Unexpected character." at '
        "position 1.",
    ),
    # CHECK: named from the table's definition (engine/sql/enforce_checks.py), matched by text
    (
        "INSERT INTO ck VALUES (1, 7)",
        Context(table="ck", checks=(("ck_chk_1", "a>0"), ("ck_chk_2", "b<5"))),
        3819,
        "HY000",
        "Check constraint 'ck_chk_2' is violated.",
    ),
    # vectors (engine/search/vector_functions.py): its macros' errors and DuckDB's list_* ones
    (
        "SELECT error('drydock-invalid-vector: [1,nan]')",
        CTX,
        6138,
        "HY000",
        "Data cannot be converted to a valid vector: '[1,nan]'",
    ),
    (
        "SELECT CAST(1 AS DOUBLE[])",
        CTX,
        6138,
        "HY000",
        "Data cannot be converted to a valid vector: 'a value of type INTEGER'",
    ),
    (
        "SELECT list_distance([1.0, NULL], [1.0, 2.0])",
        CTX,
        6138,
        "HY000",
        "Data cannot be converted to a valid vector: 'a vector with a NULL element'",
    ),
    (
        "SELECT list_inner_product([1.0, 2.0], [1.0, 2.0, 3.0])",
        CTX,
        1210,
        "HY000",
        "Vector dimensions differ: the first vector has 2, the second vector has 3",
    ),
    (
        "SELECT error('drydock-vector-dimensions: 4 3')",
        CTX,
        1210,
        "HY000",
        "Vector dimensions differ: the first vector has 4, the second vector has 3",
    ),
    (
        "INSERT INTO p VALUES (1, 'b', 1, 1, NULL)",
        CTX,
        1062,
        "23000",
        "Duplicate entry '1' for key 'p.PRIMARY'",
    ),
    (
        "INSERT INTO p VALUES (2, 'a', 1, 1, NULL)",
        CTX,
        1062,
        "23000",
        "Duplicate entry 'a' for key 'p.v'",
    ),
    (
        "INSERT INTO p (id, v) VALUES (5, 'x'), (5, 'y')",
        CTX,
        1062,
        "23000",
        "Duplicate entry '5' for key 'p.PRIMARY'",
    ),
    ("INSERT INTO p VALUES (2, NULL, 1, 1, NULL)", CTX, 1048, "23000", "Column 'v' cannot be null"),
    (
        "DELETE FROM p WHERE id = 1",
        CTX,
        1451,
        "23000",
        "Cannot delete or update a parent row: a foreign key constraint fails (key pid: 1 is still "
        "referenced)",
    ),
    (
        "INSERT INTO ch VALUES (2, 99)",
        Context(table="ch"),
        1452,
        "23000",
        "Cannot add or update a child row: a foreign key constraint fails (key id: 99 is not in "
        "the referenced table)",
    ),
    ("SELECT nosuch FROM p", CTX, 1054, "42S22", "Unknown column 'nosuch' in 'field list'"),
    (
        "SELECT nosuch",
        CTX,
        1054,
        "42S22",
        "Unknown column 'nosuch' in 'field list'",
    ),  # no FROM clause at all
    ("SELECT * FROM nosuch", CTX, 1146, "42S02", "Table 'd1.nosuch' doesn't exist"),
    ("CREATE TABLE p (x INT)", CTX, 1050, "42S01", "Table 'p' already exists"),
    ("CREATE SCHEMA main", CTX, 1007, "HY000", "Can't create database 'main'; database exists"),
    (
        "DROP SCHEMA nosuch",
        Context(drop=True),
        1008,
        "HY000",
        "Can't drop database 'nosuch'; database doesn't exist",
    ),
    ("CREATE TABLE nosuch.t (x INT)", Context(), 1049, "42000", "Unknown database 'nosuch'"),
    ("USE nosuch", Context(), 1049, "42000", "Unknown database 'nosuch'"),
    ("SELECT nosuchfn(1)", CTX, 1305, "42000", "FUNCTION d1.nosuchfn does not exist"),
    (
        "SELECT abs('x')",
        CTX,
        1582,
        "42000",
        "Incorrect parameter count or types in the call to native function 'abs'",
    ),
    (
        "SELECT list_extract(1, 2, 3)",
        CTX,
        1582,
        "42000",
        "Incorrect parameter count or types in the call to native function 'list_extract'",
    ),
    (
        "INSERT INTO p VALUES (3, 'b', 1, 1000, NULL)",
        CTX,
        1264,
        "22003",
        "Out of range value 1000 for type TINYINT",
    ),
    (
        "INSERT INTO p VALUES (3, 'b', 1000, 1, NULL)",
        CTX,
        1264,
        "22003",
        "Out of range value 1000 for type DECIMAL(4,2)",
    ),
    (
        "SELECT 9223372036854775807 + 1",
        CTX,
        1690,
        "22003",
        "BIGINT value is out of range in '9223372036854775807 + 1'",
    ),
    (
        "INSERT INTO p VALUES ('abc', 'b', 1, 1, NULL)",
        CTX,
        1366,
        "HY000",
        "Incorrect integer value: 'abc'",
    ),
    (
        "INSERT INTO p VALUES (3, 'b', 'x1', 1, NULL)",
        CTX,
        1366,
        "HY000",
        "Incorrect decimal value: 'x1'",
    ),
    (
        "INSERT INTO p VALUES (3, 'b', 1, 1, 'zz')",
        CTX,
        1292,
        "22007",
        "Incorrect datetime value: 'zz'",
    ),
    ("SELECT DATE '2024-13-01'", CTX, 1292, "22007", "Incorrect date value: '2024-13-01'"),
    (
        "SELECT length(string_agg(repeat('x', 100000), '')) FROM range(2000)",
        CTX,
        1041,
        "HY000",
        "Out of memory; the statement needs more than the 64.0 MiB all statements share (config "
        "'duckdb_memory_limit')",
    ),
    (
        "SELECT count(*) FROM (SELECT range, concat(md5(range::VARCHAR), repeat('y', 100)) s FROM "
        "range(2000000) "
        "ORDER BY s DESC, range)",
        CTX,
        1041,
        "HY000",
        "Out of memory; the statement needs to spill more than the 32.0 MiB of temporary disk "
        "space all statements "
        "share (config 'duckdb_max_temp_directory_size')",
    ),
]


@pytest.fixture
def db() -> Iterator[duckdb.DuckDBPyConnection]:
    conn = duckdb.connect()
    for sql in SETUP:
        conn.execute(sql)
    yield conn
    conn.close()
    shutil.rmtree(SPILL_DIR, ignore_errors=True)


def _raised(conn: duckdb.DuckDBPyConnection, sql: str) -> duckdb.Error:
    with pytest.raises(duckdb.Error) as info:
        conn.execute(sql)
    return info.value


@pytest.mark.parametrize("sql, ctx, code, sqlstate, message", CASES, ids=[c[0][:40] for c in CASES])
def test_duckdb_error_is_answered_with_mysqls_code_sqlstate_and_wording(
    db: duckdb.DuckDBPyConnection, sql: str, ctx: Context, code: int, sqlstate: str, message: str
) -> None:
    error = duckdb_errors.translate(_raised(db, sql), ctx)
    assert error is not None, sql
    assert (error.code, error.sqlstate, error.message) == (code, sqlstate, message)


def test_every_rule_of_the_table_has_a_case(db: duckdb.DuckDBPyConnection) -> None:
    used: set[int] = set()
    for sql, _ctx, *_ in CASES:
        line = duckdb_errors.first_line(_raised(db, sql))
        for i, rule in enumerate(duckdb_errors.RULES):
            if rule.pattern.search(line):
                used.add(i)
                break
    assert used == set(range(len(duckdb_errors.RULES)))


def test_an_error_outside_the_table_is_left_to_the_caller(db: duckdb.DuckDBPyConnection) -> None:
    assert duckdb_errors.translate(_raised(db, "SELECT * FROM range('x')")) is None


def test_a_rule_only_matches_its_own_exception_class() -> None:
    assert (
        duckdb_errors.translate(
            duckdb.ConversionException('Duplicate key "id: 1" violates primary key')
        )
        is None
    )
