"""The data dictionary's remaining DDL and DML gaps closed on internal tables, as MySQL 8 answers:
a non-member of an ENUM in non-strict mode, INSERT … SELECT under keys / foreign keys / checks,
CREATE TABLE … LIKE, DROP TABLE of several tables, RENAME TABLE across databases and FULLTEXT
keys."""

from __future__ import annotations

from typing import Any

import pymysql
import pytest


@pytest.fixture
def cur(shared_server) -> Any:  # type: ignore[no-untyped-def]
    conn = shared_server.connect()
    cursor = conn.cursor()
    for db in ("ddl_db", "ddl_other"):
        cursor.execute(f"DROP DATABASE IF EXISTS {db}")
        cursor.execute(f"CREATE DATABASE {db}")
    cursor.execute("USE ddl_db")
    yield cursor
    cursor.execute("SET FOREIGN_KEY_CHECKS = 0")
    for db in ("ddl_db", "ddl_other"):
        cursor.execute(f"DROP DATABASE IF EXISTS {db}")
    conn.close()


def _error(cur: Any, sql: str) -> tuple[int, str]:
    with pytest.raises(pymysql.err.MySQLError) as info:
        cur.execute(sql)
    return info.value.args[0], info.value.args[1]


def _warnings(cur: Any) -> list[tuple[Any, ...]]:
    cur.execute("SHOW WARNINGS")
    return [tuple(r) for r in cur.fetchall()]


def _rows(cur: Any, sql: str) -> list[tuple[Any, ...]]:
    cur.execute(sql)
    return [tuple(r) for r in cur.fetchall()]


def test_enum_non_member_is_empty_string_outside_strict_mode(cur: Any) -> None:
    """MySQL stores '' (index 0) with warning 1265, not NULL; strict mode refuses it."""
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, e ENUM('a','b'))")
    assert _error(cur, "INSERT INTO t VALUES (1, 'c')")[0] == 1265
    assert _error(cur, "INSERT INTO t VALUES (1, '')")[0] == 1265
    cur.execute("SET sql_mode = ''")
    cur.execute("INSERT INTO t VALUES (1, 'c'), (2, NULL), (3, 'B')")
    assert _warnings(cur) == [("Warning", 1265, "Data truncated for column 'e' at row 1")]
    cur.execute("UPDATE t SET e = 'zz' WHERE id = 3")
    assert _warnings(cur) == [("Warning", 1265, "Data truncated for column 'e' at row 1")]
    cur.execute("INSERT INTO t SELECT 4, 'nope'")
    assert _rows(cur, "SELECT id, e FROM t ORDER BY id") == [
        (1, ""),
        (2, None),
        (3, ""),
        (4, ""),
    ]
    # '' is index 0: it sorts before every member
    cur.execute("INSERT INTO t VALUES (5, 'a')")
    assert _rows(cur, "SELECT e FROM t WHERE e IS NOT NULL ORDER BY e, id") == [
        ("",),
        ("",),
        ("",),
        ("a",),
    ]


def test_drop_several_tables(cur: Any) -> None:
    """MySQL drops every named table or none: 1051 names all the missing ones; IF EXISTS drops
    the others with a Note 1051 per missing table."""
    cur.execute("CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(3))")
    cur.execute("CREATE TABLE b (id INT PRIMARY KEY)")
    cur.execute("CREATE TABLE c (id INT PRIMARY KEY)")
    assert _error(cur, "DROP TABLE a, nope1, b, nope2") == (
        1051,
        "Unknown table 'ddl_db.nope1,ddl_db.nope2'",
    )
    assert _rows(cur, "SHOW TABLES") == [("a",), ("b",), ("c",)]
    cur.execute("DROP TABLE IF EXISTS a, nope1, ddl_db.b")
    assert _warnings(cur) == [("Note", 1051, "Unknown table 'ddl_db.nope1'")]
    assert _rows(cur, "SHOW TABLES") == [("c",)]
    # the definition went with the table: a new one of the same name is its own
    cur.execute("CREATE TABLE a (x CHAR(2))")
    assert _rows(cur, "SHOW COLUMNS FROM a")[0][:2] == ("x", "char(2)")
    cur.execute("CREATE TABLE ddl_other.d (id INT)")
    cur.execute("DROP TABLE a, ddl_other.d, c")
    assert _rows(cur, "SHOW TABLES") == []
    assert _rows(cur, "SHOW TABLES FROM ddl_other") == []


def test_drop_several_tables_refuses_a_referenced_parent(cur: Any) -> None:
    cur.execute("CREATE TABLE par (id INT PRIMARY KEY)")
    cur.execute("CREATE TABLE kid (p INT, CONSTRAINT kid_p FOREIGN KEY (p) REFERENCES par (id))")
    cur.execute("CREATE TABLE other (id INT)")
    assert _error(cur, "DROP TABLE other, par")[0] == 3730
    assert _rows(cur, "SHOW TABLES") == [("kid",), ("other",), ("par",)]
    cur.execute("DROP TABLE par, kid")
    assert _rows(cur, "SHOW TABLES") == [("other",)]
